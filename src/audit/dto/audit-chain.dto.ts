import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SuccessEnvelope } from '../../common';
import { CHAIN_PROBLEMS, type ChainProblem } from '../audit-chain.verifier';

const STATES = ['intact', 'broken'] as const;

export class AssetDisagreementDto {
  @ApiProperty({ example: 'TIE-0001' })
  asset_id!: string;

  @ApiProperty({ type: 'integer', example: 57, description: 'The allowed decommission event the row disagrees with' })
  event_id!: number;

  @ApiProperty({ type: [String], example: ['authorized_by'], description: 'Of status, decommission_reason, authorized_by, decommissioned_at' })
  fields!: string[];
}

export class AuditChainVerificationDto {
  @ApiProperty({ enum: STATES })
  state!: (typeof STATES)[number];

  @ApiProperty({ type: 'integer', example: 1204, description: 'Events in the chain, as its head counts them' })
  length!: number;

  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (hex) of the last event, as the chain head records it. Keep it elsewhere to detect a rewrite of the whole chain',
  })
  head_hash!: string;

  @ApiPropertyOptional({ type: 'integer', example: 57, description: 'Only when broken: the first event at fault' })
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
    description: 'Only when the chain and tree are intact but some decommissioned asset rows disagree with the allowed decommission event that recorded them',
  })
  disagreeing_assets?: AssetDisagreementDto[];
}

export class AuditChainVerificationResponseDto extends SuccessEnvelope(AuditChainVerificationDto) {}
