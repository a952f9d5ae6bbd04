import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsObject, IsOptional, IsUUID, ValidateBy, ValidateNested } from 'class-validator';
import { AUDIT_ACTIONS, IsAuditCursor } from '../../../audit';
import {
  CURSOR_SCHEMA,
  INSTANT_SCHEMA,
  IsNonBlankString,
  IsNotCombinedWith,
  KeysetPagePosition,
  MAX_PAGE_SIZE,
  NextCursor,
  PageMetaDto,
  PageQueryDto,
  SAFE_INTEGER_BOUNDS,
  SuccessEnvelope,
  textSchema,
} from '../../../common';
import { DELIVERY_FEED_STATES } from '../../../database';

/** The longest url a subscription takes: what browsers and proxies reliably carry. */
export const URL_MAX_LENGTH = 2048;
export const DESCRIPTION_MAX_LENGTH = 500;
/** An asset id as the trail records it, valid or not: the filter matches what the trail holds. */
const FILTER_ASSET_ID_MAX_LENGTH = 64;
/** WEBHOOK_MAX_ATTEMPTS's bound: no event is attempted more often. */
const ATTEMPTS_MAX = 1_000;
const INT32_MAX = 2_147_483_647;
/** The longest error an attempt keeps. */
const ATTEMPT_ERROR_MAX_LENGTH = 1024;
const OUTCOMES = ['allowed', 'denied'] as const;
const TRAIL_ACTIONS = Object.values(AUDIT_ACTIONS);
const START_WORDS = ['now', 'beginning'] as const;

export const EXAMPLE_WEBHOOK_ID = '3d6f0a3e-2b1c-4e5f-8a9b-0c1d2e3f4a5b';
export const WEBHOOK_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 } as const;
const URL_SCHEMA = { type: 'string', format: 'uri', maxLength: URL_MAX_LENGTH, example: 'https://siem.example.org/hooks/fleet' } as const;
/** whsec_ and the base64 of 32 bytes. */
const SECRET_SCHEMA = { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{43}=$', maxLength: 50, example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9e1IIYxQrL8=' } as const;
const EVENT_ID_SCHEMA = { ...SAFE_INTEGER_BOUNDS, minimum: 0 } as const;

export class WebhookIdParamDto {
  @ApiProperty({ ...WEBHOOK_ID_SCHEMA, example: EXAMPLE_WEBHOOK_ID, description: 'The id the creation answered.' })
  @IsUUID('all', { message: 'id must be a UUID' })
  id!: string;
}

export class WebhookFilterDto {
  @ApiPropertyOptional({ type: [String], enum: TRAIL_ACTIONS, minItems: 1, maxItems: TRAIL_ACTIONS.length, uniqueItems: true, example: ['asset.decommission'], description: 'Only events of these actions.' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRAIL_ACTIONS.length)
  @ArrayUnique()
  @IsIn(TRAIL_ACTIONS, { each: true, message: `$property must hold only actions of the trail: ${TRAIL_ACTIONS.join(', ')}` })
  actions?: string[];

  @ApiPropertyOptional({ type: [String], enum: OUTCOMES, minItems: 1, maxItems: 2, uniqueItems: true, example: ['denied'], description: 'Only events of these outcomes.' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(OUTCOMES.length)
  @ArrayUnique()
  @IsIn(OUTCOMES, { each: true, message: '$property must hold only allowed or denied' })
  outcomes?: ('allowed' | 'denied')[];

  @ApiPropertyOptional({ ...textSchema(FILTER_ASSET_ID_MAX_LENGTH), minLength: 1, example: 'TIE-0001', description: 'Only events naming this asset.' })
  @IsOptional()
  @IsNonBlankString(FILTER_ASSET_ID_MAX_LENGTH)
  asset_id?: string;
}

/** 'now', 'beginning', or the id of an event of the trail. */
function IsStart(): PropertyDecorator {
  return ValidateBy({
    name: 'isStart',
    validator: {
      validate: (value) => (START_WORDS as readonly unknown[]).includes(value) || (Number.isSafeInteger(value) && (value as number) >= 1),
      defaultMessage: () => 'start must be "now", "beginning" or an event id (a whole number from 1)',
    },
  });
}

export class CreateWebhookDto {
  @ApiProperty({ ...URL_SCHEMA, minLength: 1, description: 'Absolute https:// url (http:// with WEBHOOK_ALLOW_HTTP=true), no user:password@; its host must not be or resolve to a loopback, private, link-local, unique-local or metadata address (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).' })
  @IsNonBlankString(URL_MAX_LENGTH)
  url!: string;

  @ApiPropertyOptional({ ...textSchema(DESCRIPTION_MAX_LENGTH), minLength: 1, example: 'SIEM: every denial' })
  @IsOptional()
  @IsNonBlankString(DESCRIPTION_MAX_LENGTH)
  description?: string;

  @ApiPropertyOptional({ type: WebhookFilterDto, description: 'Which events it takes; absent fields take all.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookFilterDto)
  filter?: WebhookFilterDto;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: [...START_WORDS] },
      { ...SAFE_INTEGER_BOUNDS, minimum: 1 },
    ],
    default: 'now',
    example: 'now',
    description: 'now: from the next event; beginning: from the first event of the trail; an event id: from that event (included).',
  })
  @IsOptional()
  @IsStart()
  start?: 'now' | 'beginning' | number;
}

export class WebhookDto {
  @ApiProperty({ ...WEBHOOK_ID_SCHEMA, example: EXAMPLE_WEBHOOK_ID })
  id!: string;

  @ApiProperty({ ...URL_SCHEMA })
  url!: string;

  @ApiProperty({ ...textSchema(DESCRIPTION_MAX_LENGTH), nullable: true, example: 'SIEM: every denial' })
  description!: string | null;

  @ApiProperty({ type: WebhookFilterDto })
  filter!: WebhookFilterDto;

  @ApiProperty({ enum: DELIVERY_FEED_STATES, example: 'active', description: 'failing: it stopped after WEBHOOK_MAX_ATTEMPTS failed attempts at one event; resume starts it again from that event.' })
  state!: (typeof DELIVERY_FEED_STATES)[number];

  @ApiProperty({ ...EVENT_ID_SCHEMA, example: 41, description: 'The id of the last event it has passed (delivered, or not taken by its filter); the next delivery is of a later one.' })
  cursor!: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: ATTEMPTS_MAX, example: 0, description: 'Failed attempts at the event after the cursor.' })
  attempts!: number;

  @ApiProperty({ ...textSchema(ATTEMPT_ERROR_MAX_LENGTH), nullable: true, example: null, description: "The last failed attempt's error; null once an attempt succeeds." })
  last_error!: string | null;

  @ApiProperty({ ...INSTANT_SCHEMA, nullable: true, example: null, description: 'When the next retry may be made; null for at once.' })
  next_attempt_at!: string | null;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-21T10:15:30.000Z' })
  created_at!: string;
}

/** The creation's answer: the only one, with the rotation's, that shows a secret. */
export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ ...SECRET_SCHEMA, description: 'Signs every delivery (Standard Webhooks). Shown in this answer only: keep it.' })
  secret!: string;
}

export class RotatedSecretDto {
  @ApiProperty({ ...WEBHOOK_ID_SCHEMA, example: EXAMPLE_WEBHOOK_ID })
  id!: string;

  @ApiProperty({ ...SECRET_SCHEMA, description: 'The new secret, shown in this answer only.' })
  secret!: string;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-22T10:15:30.000Z', description: 'Until then every delivery carries a signature with the old secret too.' })
  previous_secret_until!: string;
}

export class ListWebhooksQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ ...CURSOR_SCHEMA, description: "Keyset cursor: the previous page's next_cursor; the page holds the items older than that page's last. Not together with page." })
  @IsOptional()
  @IsAuditCursor()
  @IsNotCombinedWith('page')
  readonly cursor?: string;
}

class WebhookItems {
  @ApiProperty({ type: [WebhookDto], maxItems: MAX_PAGE_SIZE })
  webhooks!: WebhookDto[];
}

/** The fields in the order the service writes them, which Swagger UI's example follows. */
export class WebhookPageDto extends IntersectionType(WebhookItems, KeysetPagePosition, PickType(PageMetaDto, ['per_page'] as const), NextCursor) {}

export class DeliveryAttemptDto {
  @ApiProperty({ ...EVENT_ID_SCHEMA, minimum: 1, example: 42, description: 'The event delivered: its webhook-id.' })
  event_id!: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: ATTEMPTS_MAX, example: 1, description: 'Counts from 1 for each event.' })
  attempt!: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 100, maximum: 599, nullable: true, example: 204, description: "The receiver's HTTP status; null when it gave none." })
  status!: number | null;

  @ApiProperty({ ...textSchema(ATTEMPT_ERROR_MAX_LENGTH), nullable: true, example: null, description: 'What went wrong (timeout, refused connection, non-2xx, forbidden address); null when delivered.' })
  error!: string | null;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX, example: 37 })
  duration_ms!: number;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-21T10:15:30.120Z' })
  attempted_at!: string;
}

class DeliveryAttemptItems {
  @ApiProperty({ type: [DeliveryAttemptDto], maxItems: MAX_PAGE_SIZE })
  deliveries!: DeliveryAttemptDto[];
}

export class DeliveryAttemptPageDto extends IntersectionType(DeliveryAttemptItems, KeysetPagePosition, PickType(PageMetaDto, ['per_page'] as const), NextCursor) {}

export class WebhookResponseDto extends SuccessEnvelope(WebhookDto) {}
export class CreatedWebhookResponseDto extends SuccessEnvelope(CreatedWebhookDto) {}
export class RotatedSecretResponseDto extends SuccessEnvelope(RotatedSecretDto) {}
export class WebhookListResponseDto extends SuccessEnvelope(WebhookPageDto) {}
export class DeliveryAttemptListResponseDto extends SuccessEnvelope(DeliveryAttemptPageDto) {}
