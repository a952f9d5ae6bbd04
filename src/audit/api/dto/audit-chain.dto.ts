import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ASSET_ID_SCHEMA, HEX_SHA256_SCHEMA, SAFE_INTEGER_BOUNDS, SuccessEnvelope } from '../../../common';
import { APPROVAL_PROBLEMS, CHAIN_PROBLEMS, type ChainProblem, NO_DECOMMISSION_EVENT } from '../../trail';

const STATES = ['intact', 'broken'] as const;
const ASSET_FIELDS = ['status', 'decommission_reason', 'authorized_by', 'decommissioned_at', NO_DECOMMISSION_EVENT, ...Object.keys(APPROVAL_PROBLEMS)];
/** Every asset id there can be (AAA-9999): the most assets that can disagree. */
const ASSET_ID_COUNT = 26 ** 3 * 10 ** 4;

export class AssetDisagreementDto {
  @ApiProperty({ ...ASSET_ID_SCHEMA })
  asset_id!: string;

  @ApiProperty({
    ...SAFE_INTEGER_BOUNDS,
    minimum: 1,
    nullable: true,
    example: 57,
    description: 'The allowed decommission or recommission event the row or the trail is at fault with; null when the row is decommissioned and no decommission event records it',
  })
  event_id!: number | null;

  @ApiProperty({
    enum: ASSET_FIELDS,
    isArray: true,
    maxItems: ASSET_FIELDS.length,
    example: ['authorized_by'],
    description:
      `The row's fields that disagree with the event; ${NO_DECOMMISSION_EVENT}: the row is decommissioned, was not imported so, and no decommission event records it. ` +
      Object.entries(APPROVAL_PROBLEMS)
        .map(([problem, meaning]) => `${problem}: ${meaning}.`)
        .join(' '),
  })
  fields!: string[];
}

export class AuditChainVerificationDto {
  @ApiProperty({ enum: STATES })
  state!: (typeof STATES)[number];

  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 0, example: 1204, description: 'Events in the chain, as its head counts them' })
  length!: number;

  @ApiProperty({
    ...HEX_SHA256_SCHEMA,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (hex) of the last event, as the chain head records it. Keep it elsewhere to detect a rewrite of the whole chain',
  })
  head_hash!: string;

  @ApiPropertyOptional({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 57, description: 'Only when broken: the first event at fault' })
  first_broken_event_id?: number;

  @ApiPropertyOptional({
    enum: Object.keys(CHAIN_PROBLEMS),
    description: `Only when broken. ${Object.entries(CHAIN_PROBLEMS)
      .map(([problem, meaning]) => `${problem}: ${meaning}.`)
      .join(' ')}`,
  })
  problem?: ChainProblem;

  @ApiPropertyOptional({
    type: [AssetDisagreementDto],
    maxItems: ASSET_ID_COUNT,
    description: 'Only when the chain and tree are intact but some asset rows disagree with the allowed decommission or recommission event that recorded them',
  })
  disagreeing_assets?: AssetDisagreementDto[];
}

export class AuditChainVerificationResponseDto extends SuccessEnvelope(AuditChainVerificationDto) {}
