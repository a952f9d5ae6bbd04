import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { IsIn, IsOptional, ValidateBy } from 'class-validator';
import {
  ASSET_ID_SCHEMA,
  BASE64_SHA256_SCHEMA,
  HEX_SHA256_SCHEMA,
  INSTANT_SCHEMA,
  IsAssetId,
  IsInstant,
  IsIntInRange,
  IsNonBlankString,
  IsNotCombinedWith,
  CURSOR_SCHEMA,
  KeysetPagePosition,
  NextCursor,
  MAX_PAGE_SIZE,
  PageMetaDto,
  PageQueryDto,
  SAFE_INTEGER_BOUNDS,
  SuccessEnvelope,
  textSchema,
  ToInteger,
} from '../../../common';
import { decodeAuditCursor } from '../audit-cursor';
import { AUDIT_ACTIONS, DENIAL_REASONS } from '../../audit.vocabulary';
import { AUDIT_FIELD_LIMITS } from '../../trail';

const OUTCOMES = ['allowed', 'denied'] as const;
const ACTIONS = Object.values(AUDIT_ACTIONS);

export function IsAuditCursor(): PropertyDecorator {
  return ValidateBy({
    name: 'isAuditCursor',
    validator: {
      validate: (value) => typeof value === 'string' && decodeAuditCursor(value) !== undefined,
      defaultMessage: (args) => `${args?.property} must be a next_cursor the listing returned`,
    },
  });
}

/** The filters the listing and the stream share. */
export class AuditFilterQueryDto {
  @ApiPropertyOptional({ enum: OUTCOMES })
  @IsOptional()
  @IsIn(OUTCOMES)
  readonly outcome?: (typeof OUTCOMES)[number];

  @ApiPropertyOptional({ ...ASSET_ID_SCHEMA })
  @IsOptional()
  @IsAssetId()
  readonly asset_id?: string;

  @ApiPropertyOptional({ ...textSchema(AUDIT_FIELD_LIMITS.actor), minLength: 1, example: 'officer-7', description: 'The token subject who acted.' })
  @IsOptional()
  @IsNonBlankString(AUDIT_FIELD_LIMITS.actor)
  readonly actor?: string;

  @ApiPropertyOptional({ enum: ACTIONS })
  @IsOptional()
  @IsIn(ACTIONS)
  readonly action?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', maxLength: 40, example: '2026-11-21T00:00:00Z', description: 'Events that occurred at or after this instant (ISO 8601 with an offset).' })
  @IsOptional()
  @IsInstant()
  readonly since?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', maxLength: 40, example: '2026-11-22T00:00:00Z', description: 'Events that occurred before this instant (ISO 8601 with an offset).' })
  @IsOptional()
  @IsInstant()
  readonly until?: string;

}

export class ListAuditEventsQueryDto extends IntersectionType(PageQueryDto, AuditFilterQueryDto) {
  // No example: Swagger UI would fill it in on "Try it out", and with page's default that is a 400.
  @ApiPropertyOptional({
    ...CURSOR_SCHEMA,
    description:
      "Keyset cursor: the previous page's next_cursor; the page holds the matching events before that page's last. " +
      'Any depth costs what the first page does, and events appended meanwhile never shift it. Not together with page, the slow path.',
  })
  @IsOptional()
  @IsAuditCursor()
  @IsNotCombinedWith('page')
  readonly cursor?: string;
}

export class StreamAuditEventsQueryDto extends AuditFilterQueryDto {
  @ApiPropertyOptional({
    ...SAFE_INTEGER_BOUNDS,
    minimum: 0,
    description: 'Resume after this event id, as the Last-Event-ID header does (which wins): the missed events are replayed first. Without either, the stream starts with the next event.',
  })
  @IsOptional()
  @ToInteger()
  @IsIntInRange(0, Number.MAX_SAFE_INTEGER)
  readonly after?: number;
}

export class AuditDecisionDetailsDto {
  @ApiPropertyOptional({ format: 'uuid', maxLength: 36, example: '6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f', description: 'The decommission request the decision belongs to, when DECOMMISSION_APPROVAL=required' })
  request_id?: string;

  @ApiPropertyOptional({ format: 'uuid', maxLength: 36, example: '0c6a4f9e-2d1b-4e8a-9f3c-7b5d1e2a4c6f', description: 'The batch the decommission was one of (POST /v1/assets/decommissions)' })
  batch_id?: string;

  @ApiPropertyOptional({ ...textSchema(AUDIT_FIELD_LIMITS.detail), example: 'Damaged beyond repair during the Battle of Yavin', description: "A decommission's or recommission's events" })
  reason?: string;

  @ApiPropertyOptional({ ...textSchema(AUDIT_FIELD_LIMITS.detail), example: 'Grand Moff Tarkin', description: "A decommission's or recommission's events" })
  authorized_by?: string;

  @ApiPropertyOptional({ format: 'uuid', maxLength: 36, example: '3d6f0a3e-2b1c-4e5f-8a9b-0c1d2e3f4a5b', description: "A webhook subscription's events (webhook.*): the subscription changed" })
  webhook_id?: string;

  @ApiPropertyOptional({ ...textSchema(AUDIT_FIELD_LIMITS.detail), example: 'https://siem.example.org/hooks/fleet', description: "A webhook subscription's events: its url, without the query (which often carries a receiver's token)" })
  url?: string;
}

export class AuditEventDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 42, description: 'Position in the audit chain' })
  id!: number;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-21T10:15:30.000Z', description: 'UTC, to the millisecond.' })
  occurred_at!: string;

  @ApiProperty({ enum: ACTIONS, example: 'asset.decommission' })
  action!: string;

  @ApiProperty({ enum: OUTCOMES })
  outcome!: (typeof OUTCOMES)[number];

  @ApiProperty({ enum: DENIAL_REASONS, nullable: true, type: String, description: 'Why it was denied; null when allowed.' })
  reason!: string | null;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.actor), nullable: true, example: 'officer-7', description: 'Token subject; null when no valid token was given.' })
  actor!: string | null;

  @ApiProperty({ nullable: true, type: 'integer', format: 'int32', minimum: 0, maximum: 10, example: 7 })
  actor_clearance!: number | null;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.assetId), nullable: true, example: 'TIE-0001', description: 'As the request named it, valid or not.' })
  asset_id!: string | null;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.requestId), example: '0f6f3f0e-6a53-4d1a-9d56-2b1b8d1c1e7a' })
  request_id!: string;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.ip), nullable: true, example: '127.0.0.1' })
  ip!: string | null;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.method), example: 'DELETE' })
  method!: string;

  @ApiProperty({ ...textSchema(AUDIT_FIELD_LIMITS.path), example: '/v1/assets/TIE-0001' })
  path!: string;

  @ApiProperty({ ...HEX_SHA256_SCHEMA, example: 'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2', description: 'hash of the event before it in the chain' })
  prev_hash!: string;

  @ApiProperty({
    type: AuditDecisionDetailsDto,
    nullable: true,
    description:
      "An allowed decommission's or recommission's reason and authorising officer, as the request gave them (with its request_id in a decommission request's events); a webhook subscription's id and url in its events; null in other events",
  })
  details!: AuditDecisionDetailsDto | null;

  @ApiProperty({
    ...HEX_SHA256_SCHEMA,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (hex) of the JSON array of the fields above from id to prev_hash, in their order here',
  })
  hash!: string;

  @ApiProperty({
    ...BASE64_SHA256_SCHEMA,
    example: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    description: 'RFC 9162 leaf hash (base64): SHA-256 of 0x00 and the UTF-8 JSON array of the fields from id to details, in their order here',
  })
  leaf_hash!: string;
}

class AuditEventItems {
  @ApiProperty({ type: [AuditEventDto], maxItems: MAX_PAGE_SIZE })
  events!: AuditEventDto[];
}

/** The fields in the order the service writes them, which Swagger UI's example follows. */
export class AuditEventPageDto extends IntersectionType(AuditEventItems, KeysetPagePosition, PickType(PageMetaDto, ['per_page'] as const), NextCursor) {}

export class AuditEventListResponseDto extends SuccessEnvelope(AuditEventPageDto) {}
