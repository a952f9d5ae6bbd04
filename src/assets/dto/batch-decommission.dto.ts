import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, Matches } from 'class-validator';
import { ASSET_ID_PATTERN, ASSET_ID_SCHEMA } from '../../common';
import { DecommissionAssetDto, DecommissionedAssetDto } from './asset.dto';

/** The most assets one batch decommissions: its transaction holds each one's row until it commits. */
export const BATCH_MAX_ASSETS = 100;
export const BATCH_ID_SCHEMA = { type: 'string', format: 'uuid', maxLength: 36 } as const;

/** A decommission's body, for every asset it names. */
export class BatchDecommissionDto extends DecommissionAssetDto {
  @ApiProperty({ type: 'array', items: { ...ASSET_ID_SCHEMA }, minItems: 1, maxItems: BATCH_MAX_ASSETS, uniqueItems: true, example: ['EQP-0001', 'FAC-0001'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BATCH_MAX_ASSETS)
  @ArrayUnique({ message: 'asset_ids must not name an asset twice' })
  @Matches(ASSET_ID_PATTERN, { each: true, message: `each of asset_ids must match ${ASSET_ID_PATTERN.source}` })
  asset_ids!: string[];
}

export class BatchDecommissionedDto {
  @ApiProperty({ ...BATCH_ID_SCHEMA, description: "The batch's id, in the details of each asset's asset.decommission event." })
  batch_id!: string;

  @ApiProperty({ type: [DecommissionedAssetDto], maxItems: BATCH_MAX_ASSETS, description: "Each asset's decommission, as DELETE answers it, in the order asset_ids gave." })
  decommissioned!: DecommissionedAssetDto[];
}

export class BatchDecommissionResponseDto {
  @ApiProperty({ enum: ['success'] })
  status!: 'success';

  @ApiProperty({ type: 'string', pattern: '^[0-9]{1,3} assets decommissioned successfully$', maxLength: 37, example: '2 assets decommissioned successfully' })
  message!: string;

  @ApiProperty({ type: BatchDecommissionedDto })
  data!: BatchDecommissionedDto;
}
