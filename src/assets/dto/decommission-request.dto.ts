import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { IsAuditCursor } from '../../audit';
import { SUBJECT_MAX_LENGTH } from '../../auth';
import {
  ASSET_ID_SCHEMA,
  CURSOR_SCHEMA,
  INSTANT_SCHEMA,
  IsAssetId,
  IsNotCombinedWith,
  KeysetPagePosition,
  MAX_PAGE_SIZE,
  NextCursor,
  PageMetaDto,
  PageQueryDto,
  SuccessEnvelope,
  textSchema,
  TOKEN_SUBJECT_SCHEMA,
} from '../../common';
import { DECOMMISSION_REQUEST_KINDS, DECOMMISSION_REQUEST_STATES, type DecommissionRequestKind, type DecommissionRequestState } from '../../database';
import { AUTHORIZED_BY_MAX_LENGTH, REASON_MAX_LENGTH } from './asset.dto';
import { BATCH_ID_SCHEMA, BATCH_MAX_ASSETS } from './batch-decommission.dto';

export const EXAMPLE_REQUEST_ID = '6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f';
/** Each decision documents a request of its own, pending in its example: one approved cannot be rejected. */
export const EXAMPLE_REJECTED_REQUEST_ID = '0b9e6a52-3f4d-4c21-8a7e-5d6c7b8a9f01';
export const EXAMPLE_WITHDRAWN_REQUEST_ID = '9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f';
/** A request id as the service writes it: a UUID, 36 characters. */
export const REQUEST_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 } as const;

export class DecommissionRequestIdParamDto {
  @ApiProperty({ ...REQUEST_ID_SCHEMA, example: EXAMPLE_REQUEST_ID, description: 'The request_id the DELETE answered.' })
  @IsUUID('all', { message: 'request_id must be a UUID' })
  request_id!: string;
}

export class DecommissionRequestDto {
  @ApiProperty({ ...REQUEST_ID_SCHEMA, example: EXAMPLE_REQUEST_ID })
  request_id!: string;

  @ApiProperty({ ...ASSET_ID_SCHEMA, description: 'Its asset: for a request opened by a batch, the first of asset_ids.' })
  asset_id!: string;

  @ApiProperty({
    type: 'array',
    items: { ...ASSET_ID_SCHEMA },
    minItems: 1,
    maxItems: BATCH_MAX_ASSETS,
    uniqueItems: true,
    example: ['TIE-0001'],
    description: 'Every asset it holds, in the order it was asked for: [asset_id] for a request opened by DELETE or a recommission, the asset_ids of a batch.',
  })
  asset_ids!: string[];

  @ApiProperty({
    ...BATCH_ID_SCHEMA,
    nullable: true,
    example: null,
    description: "Opened by a batch (POST /v1/assets/decommissions): the batch_id its approval answers and each asset's asset.decommission event carries; null for a request opened by DELETE or a recommission.",
  })
  batch_id!: string | null;

  @ApiProperty({ enum: DECOMMISSION_REQUEST_KINDS, example: 'decommission', description: "What its approval does: decommission the asset (a DELETE's request) or recommission it (a recommission's)." })
  kind!: DecommissionRequestKind;

  @ApiProperty({ enum: DECOMMISSION_REQUEST_STATES, example: 'pending' })
  state!: DecommissionRequestState;

  @ApiProperty({ ...TOKEN_SUBJECT_SCHEMA, maxLength: SUBJECT_MAX_LENGTH, example: 'officer-7', description: 'The token subject who asked.' })
  requested_by!: string;

  @ApiProperty({ ...textSchema(AUTHORIZED_BY_MAX_LENGTH), example: 'officer-9', description: 'The token subject of the officer who may approve or reject it.' })
  authorized_by!: string;

  @ApiProperty({ ...textSchema(REASON_MAX_LENGTH), example: 'Damaged beyond repair during the Battle of Yavin' })
  reason!: string;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-21T10:15:30.000Z' })
  created_at!: string;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-22T10:15:30.000Z', description: 'Past this instant it can no longer be approved.' })
  expires_at!: string;

  @ApiProperty({ ...INSTANT_SCHEMA, nullable: true, example: null, description: 'When it was approved, rejected or withdrawn, or when it expired; null while pending.' })
  decided_at!: string | null;

  @ApiProperty({ ...TOKEN_SUBJECT_SCHEMA, maxLength: SUBJECT_MAX_LENGTH, nullable: true, example: null, description: 'Who approved, rejected or withdrew it; null while pending and once expired.' })
  decided_by!: string | null;
}

export class DecommissionRequestResponseDto extends SuccessEnvelope(DecommissionRequestDto) {}

const AWAITING = ['me'] as const;

export class ListDecommissionRequestsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DECOMMISSION_REQUEST_STATES })
  @IsOptional()
  @IsIn(DECOMMISSION_REQUEST_STATES)
  readonly state?: DecommissionRequestState;

  @ApiPropertyOptional({ ...ASSET_ID_SCHEMA, description: 'The requests that hold this asset, alone or among the assets of a batch.' })
  @IsOptional()
  @IsAssetId()
  readonly asset_id?: string;

  @ApiPropertyOptional({ enum: AWAITING, description: "me: the pending requests that name the caller as authorized_by, awaiting the caller's decision. Not together with state." })
  @IsOptional()
  @IsIn(AWAITING)
  @IsNotCombinedWith('state')
  readonly awaiting?: (typeof AWAITING)[number];

  @ApiPropertyOptional({
    ...CURSOR_SCHEMA,
    description: "Keyset cursor: the previous page's next_cursor; the page holds the matching requests older than that page's last. Not together with page.",
  })
  @IsOptional()
  @IsAuditCursor()
  @IsNotCombinedWith('page')
  readonly cursor?: string;
}

class DecommissionRequestItems {
  @ApiProperty({ type: [DecommissionRequestDto], maxItems: MAX_PAGE_SIZE })
  requests!: DecommissionRequestDto[];
}

/** The fields in the order the service writes them, which Swagger UI's example follows. */
export class DecommissionRequestPageDto extends IntersectionType(
  DecommissionRequestItems,
  KeysetPagePosition,
  PickType(PageMetaDto, ['per_page'] as const),
  NextCursor,
) {}

export class DecommissionRequestListResponseDto extends SuccessEnvelope(DecommissionRequestPageDto) {}
