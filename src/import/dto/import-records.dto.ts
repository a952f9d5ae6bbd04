import { applyDecorators } from '@nestjs/common';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { ASSET_TEXT_MAX_LENGTH, AUTHORIZED_BY_MAX_LENGTH, REASON_MAX_LENGTH } from '../../assets';
import { IsAssetId, IsIntInRange, IsNonBlankString, IsRequired, IsVesselId } from '../../common';
import { VESSEL_LIMITS } from '../../fleet';
import { ASSET_STATUSES, type AssetStatus, SECTORS, type Sector } from '../../database';

/** A calendar date-time with its offset, e.g. 2026-03-01T12:00:00Z: never read in the importer's own time zone. */
export const TIMESTAMP_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function IsUtcTimestamp(): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Matches(TIMESTAMP_WITH_OFFSET, { message: '$property must be an ISO 8601 date-time with Z or an offset, e.g. 2026-03-01T12:00:00Z' }),
    IsISO8601({ strict: true }, { message: '$property must be a real date and time' }),
  );
}

const isDecommissioned = (asset: ImportAssetDto) => asset.status === 'decommissioned';

/**
 * A decommission detail (listed last, below the field's other checks, so that it is checked first): required with status decommissioned, and refused without it rather than
 * dropped, so a file that says when an asset was decommissioned but not that it was is not half-read.
 */
function IsDecommissionDetail(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((asset: ImportAssetDto, value: unknown) => isDecommissioned(asset) || (value !== undefined && value !== null)),
    ValidateBy({
      name: 'isDecommissionDetail',
      validator: {
        validate: (_value, args) => isDecommissioned(args?.object as ImportAssetDto),
        defaultMessage: () => '$property is only allowed with status "decommissioned"',
      },
    }),
  );
}

export class ImportAssetDto {
  @IsRequired()
  @IsAssetId()
  asset_id!: string;

  @IsNonBlankString(ASSET_TEXT_MAX_LENGTH)
  asset_type!: string;

  @IsNonBlankString(ASSET_TEXT_MAX_LENGTH)
  former_pilot!: string;

  @IsOptional()
  @IsIn(ASSET_STATUSES)
  status?: AssetStatus;

  @IsNonBlankString(REASON_MAX_LENGTH)
  @IsDecommissionDetail()
  decommission_reason?: string;

  @IsRequired()
  @IsUtcTimestamp()
  @IsDecommissionDetail()
  decommissioned_at?: string;

  @IsNonBlankString(AUTHORIZED_BY_MAX_LENGTH)
  @IsDecommissionDetail()
  authorized_by?: string;
}

export class ImportVesselDto {
  @IsRequired()
  @IsVesselId()
  id!: string;

  @IsNonBlankString(VESSEL_LIMITS.text)
  name!: string;

  @IsNonBlankString(VESSEL_LIMITS.text)
  class!: string;

  @IsRequired()
  @Matches(VESSEL_LIMITS.lengthPattern, { message: 'length must be a number followed by " meters", e.g. "1600 meters"' })
  @MaxLength(VESSEL_LIMITS.length)
  length!: string;

  @IsRequired()
  @IsIntInRange(0, VESSEL_LIMITS.crew)
  crew!: number;

  @IsNonBlankString(VESSEL_LIMITS.text)
  commander!: string;

  @IsRequired()
  @IsIn(SECTORS)
  sector!: Sector;

  @IsNonBlankString(VESSEL_LIMITS.status)
  status!: string;
}
