import { applyDecorators } from '@nestjs/common';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, ValidateIf } from 'class-validator';
import { IsAssetId, IsIntInRange, IsNonBlankString, IsVesselId } from '../../common';
import { ASSET_STATUSES, type AssetStatus, SECTORS, type Sector } from '../../database';

/** A calendar date-time with its offset, e.g. 2026-03-01T12:00:00Z: never read in the importer's own time zone. */
const TIMESTAMP_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function IsUtcTimestamp(): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Matches(TIMESTAMP_WITH_OFFSET, { message: '$property must be an ISO 8601 date-time with Z or an offset, e.g. 2026-03-01T12:00:00Z' }),
    IsISO8601({ strict: true }, { message: '$property must be a real date and time' }),
  );
}

const isDecommissioned = (asset: ImportAssetDto) => asset.status === 'decommissioned';

export class ImportAssetDto {
  @IsAssetId()
  asset_id!: string;

  @IsNonBlankString(100)
  asset_type!: string;

  @IsNonBlankString(100)
  former_pilot!: string;

  @IsOptional()
  @IsIn(ASSET_STATUSES)
  status?: AssetStatus;

  @ValidateIf(isDecommissioned)
  @IsNonBlankString(500)
  decommission_reason?: string;

  @ValidateIf(isDecommissioned)
  @IsUtcTimestamp()
  decommissioned_at?: string;

  @ValidateIf(isDecommissioned)
  @IsNonBlankString(100)
  authorized_by?: string;
}

export class ImportVesselDto {
  @IsVesselId()
  id!: string;

  @IsNonBlankString(100)
  name!: string;

  @IsNonBlankString(100)
  class!: string;

  @Matches(/^[0-9]+(\.[0-9]+)? meters$/, { message: 'length must be a number followed by " meters", e.g. "1600 meters"' })
  length!: string;

  @IsIntInRange(0, 10_000_000)
  crew!: number;

  @IsNonBlankString(100)
  commander!: string;

  @IsIn(SECTORS)
  sector!: Sector;

  @IsNonBlankString(50)
  status!: string;
}
