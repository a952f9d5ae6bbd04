import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ASSET_ID_PATTERN, DENIAL_REASONS, IsAssetId, PageOf, PageQueryDto, SuccessEnvelope } from '../../common';

const OUTCOMES = ['allowed', 'denied'] as const;

export class ListAuditEventsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: OUTCOMES })
  @IsOptional()
  @IsIn(OUTCOMES)
  readonly outcome?: (typeof OUTCOMES)[number];

  @ApiPropertyOptional({ pattern: ASSET_ID_PATTERN.source, example: 'TIE-0001' })
  @IsOptional()
  @IsAssetId()
  readonly asset_id?: string;
}

export class AuditDecisionDetailsDto {
  @ApiProperty({ example: 'Damaged beyond repair during the Battle of Yavin' })
  reason!: string;

  @ApiProperty({ example: 'Grand Moff Tarkin' })
  authorized_by!: string;
}

export class AuditEventDto {
  @ApiProperty({ type: 'integer', example: 42, description: 'Position in the audit chain' })
  id!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:15:30.000Z' })
  occurred_at!: string;

  @ApiProperty({ example: 'asset.decommission', description: 'e.g. asset.decommission, auth.authenticate, audit.read' })
  action!: string;

  @ApiProperty({ enum: OUTCOMES })
  outcome!: (typeof OUTCOMES)[number];

  @ApiProperty({ enum: DENIAL_REASONS, nullable: true, type: String, description: 'Why it was denied; null when allowed.' })
  reason!: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'officer-7', description: 'Token subject; null when no valid token was given.' })
  actor!: string | null;

  @ApiProperty({ nullable: true, type: 'integer', example: 7 })
  actor_clearance!: number | null;

  @ApiProperty({ nullable: true, type: String, example: 'TIE-0001' })
  asset_id!: string | null;

  @ApiProperty({ example: '0f6f3f0e-6a53-4d1a-9d56-2b1b8d1c1e7a' })
  request_id!: string;

  @ApiProperty({ nullable: true, type: String, example: '127.0.0.1' })
  ip!: string | null;

  @ApiProperty({ example: 'DELETE' })
  method!: string;

  @ApiProperty({ example: '/v1/assets/TIE-0001' })
  path!: string;

  @ApiProperty({ example: 'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2', description: 'hash of the event before it in the chain' })
  prev_hash!: string;

  @ApiProperty({
    type: AuditDecisionDetailsDto,
    nullable: true,
    description: "An allowed decommission's reason and authorising officer, as the request gave them; null in other events",
  })
  details!: AuditDecisionDetailsDto | null;

  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 (hex) of the JSON array of the fields above from id to prev_hash, in their order here',
  })
  hash!: string;

  @ApiProperty({
    example: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    description: 'RFC 9162 leaf hash (base64): SHA-256 of 0x00 and the UTF-8 JSON array of the fields from id to details, in their order here',
  })
  leaf_hash!: string;
}

export class AuditEventPageDto extends PageOf('events', AuditEventDto) {}

export class AuditEventListResponseDto extends SuccessEnvelope(AuditEventPageDto) {}
