import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ASSET_ID_SCHEMA, INSTANT_SCHEMA, IsAssetId, IsNonBlankString, PageOf, PageQueryDto, SuccessEnvelope, textSchema } from '../../common';
import { ASSET_STATUSES, type AssetStatus } from '../../database';

export const REASON_MAX_LENGTH = 500;
export const AUTHORIZED_BY_MAX_LENGTH = 100;
/** asset_type's and former_pilot's limit, as the record import holds them to it. */
export const ASSET_TEXT_MAX_LENGTH = 100;
/** "Asset TIE-0001 recommissioned successfully", the longest. */
const CHANGE_MESSAGE_SCHEMA = { type: 'string', pattern: '^Asset [A-Z]{3}-[0-9]{4} (de|re)commissioned successfully$', maxLength: 42 } as const;

export class AssetIdParamDto {
  @ApiProperty({ ...ASSET_ID_SCHEMA, description: 'Three capital letters, a hyphen, four digits.' })
  @IsAssetId()
  asset_id!: string;
}

export class DecommissionAssetDto {
  @ApiProperty({ ...textSchema(REASON_MAX_LENGTH), minLength: 1, example: 'Damaged beyond repair during the Battle of Yavin' })
  @IsNonBlankString(REASON_MAX_LENGTH)
  reason!: string;

  @ApiProperty({ ...textSchema(AUTHORIZED_BY_MAX_LENGTH), minLength: 1, example: 'Grand Moff Tarkin' })
  @IsNonBlankString(AUTHORIZED_BY_MAX_LENGTH)
  authorized_by!: string;
}

/** The same fields and rules as a decommission's. */
export class RecommissionAssetDto extends DecommissionAssetDto {}

export class DecommissionedAssetDto {
  @ApiProperty({ ...ASSET_ID_SCHEMA })
  asset_id!: string;

  @ApiProperty({ ...textSchema(ASSET_TEXT_MAX_LENGTH), example: 'vehicle', description: 'Free text naming the kind of asset.' })
  asset_type!: string;

  @ApiProperty({ ...textSchema(ASSET_TEXT_MAX_LENGTH), example: 'TK-421' })
  former_pilot!: string;

  @ApiProperty({ ...textSchema(REASON_MAX_LENGTH), example: 'Damaged beyond repair during the Battle of Yavin' })
  decommission_reason!: string;

  @ApiProperty({ ...INSTANT_SCHEMA, example: '2026-11-21T10:15:30.000Z', description: 'ISO 8601, UTC.' })
  decommissioned_at!: string;

  @ApiProperty({ ...textSchema(AUTHORIZED_BY_MAX_LENGTH), example: 'Grand Moff Tarkin' })
  authorized_by!: string;
}

/** The spec's decommission reply: unlike the other success bodies, a message comes before the data. */
export class DecommissionResponseDto {
  @ApiProperty({ enum: ['success'] })
  status!: 'success';

  @ApiProperty({ ...CHANGE_MESSAGE_SCHEMA, example: 'Asset TIE-0001 decommissioned successfully' })
  message!: string;

  @ApiProperty({ type: DecommissionedAssetDto })
  data!: DecommissionedAssetDto;
}

export class AssetDto {
  @ApiProperty({ ...ASSET_ID_SCHEMA })
  asset_id!: string;

  @ApiProperty({ ...textSchema(ASSET_TEXT_MAX_LENGTH), example: 'vehicle' })
  asset_type!: string;

  @ApiProperty({ ...textSchema(ASSET_TEXT_MAX_LENGTH), example: 'TK-421' })
  former_pilot!: string;

  @ApiProperty({ enum: ASSET_STATUSES })
  status!: AssetStatus;

  @ApiProperty({ ...textSchema(REASON_MAX_LENGTH), nullable: true, example: null })
  decommission_reason!: string | null;

  @ApiProperty({ ...INSTANT_SCHEMA, nullable: true, example: null })
  decommissioned_at!: string | null;

  @ApiProperty({ ...textSchema(AUTHORIZED_BY_MAX_LENGTH), nullable: true, example: null })
  authorized_by!: string | null;
}

export class AssetResponseDto extends SuccessEnvelope(AssetDto) {}

/** Like the decommission's reply, a message before the data. */
export class RecommissionResponseDto {
  @ApiProperty({ enum: ['success'] })
  status!: 'success';

  @ApiProperty({ ...CHANGE_MESSAGE_SCHEMA, example: 'Asset TIE-0001 recommissioned successfully' })
  message!: string;

  @ApiProperty({ type: AssetDto })
  data!: AssetDto;
}

export class ListAssetsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ASSET_STATUSES })
  @IsOptional()
  @IsIn(ASSET_STATUSES)
  readonly status?: AssetStatus;
}

export class AssetPageDto extends PageOf('assets', AssetDto) {}

export class AssetListResponseDto extends SuccessEnvelope(AssetPageDto) {}
