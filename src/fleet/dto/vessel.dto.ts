import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsNotCombinedWith, IsVesselId, MAX_PAGE, MAX_PAGE_SIZE, PageMetaDto, PageQueryDto, SuccessEnvelope, textSchema, VESSEL_ID_SCHEMA } from '../../common';
import { VESSEL_LIMITS } from './vessel-limits';
import { SECTORS, type Sector } from '../../database';

export class ListVesselsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SECTORS, description: 'Filters by galactic sector.' })
  @IsOptional()
  @IsIn(SECTORS)
  readonly sector?: Sector;

  // No example: Swagger UI would fill it in on "Try it out", and with page's default that is a 400.
  @ApiPropertyOptional({
    ...VESSEL_ID_SCHEMA,
    example: undefined,
    description:
      'Keyset cursor: the vessels whose id comes after this one, in id order (within the sector, when one is given). ' +
      "Pass the previous page's next_cursor; any depth costs what the first page does. Not together with page.",
  })
  @IsOptional()
  @IsVesselId()
  @IsNotCombinedWith('page')
  readonly after?: string;
}

export class VesselDto {
  @ApiProperty({ ...VESSEL_ID_SCHEMA, description: 'A short letter prefix, a hyphen and a number.' })
  id!: string;

  @ApiProperty({ ...textSchema(VESSEL_LIMITS.text), example: 'Devastator' })
  name!: string;

  @ApiProperty({ ...textSchema(VESSEL_LIMITS.text), example: 'Imperial I-class' })
  class!: string;

  @ApiProperty({ pattern: VESSEL_LIMITS.lengthPattern.source, maxLength: VESSEL_LIMITS.length, example: '1600 meters' })
  length!: string;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: VESSEL_LIMITS.crew, example: 37085 })
  crew!: number;

  @ApiProperty({ ...textSchema(VESSEL_LIMITS.text), example: 'Captain Piett' })
  commander!: string;

  @ApiProperty({ enum: SECTORS })
  sector!: Sector;

  @ApiProperty({ ...textSchema(VESSEL_LIMITS.status), example: 'operational' })
  status!: string;
}

class VesselItems {
  @ApiProperty({ type: [VesselDto], maxItems: MAX_PAGE_SIZE })
  vessels!: VesselDto[];
}

class PagePosition {
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE, nullable: true, example: 1, description: 'The page number; null on a page asked for with after.' })
  page!: number | null;
}

class NextCursor {
  @ApiProperty({
    ...VESSEL_ID_SCHEMA,
    nullable: true,
    // What the first page of ten (per_page and page above) answers over the demo data.
    example: 'ISD-010',
    description: 'The id of the last vessel of this page when more follow, to pass as after; null on the last page.',
  })
  next_cursor!: string | null;
}

/** The fields in the order the service writes them, which Swagger UI's example follows. */
export class VesselPageDto extends IntersectionType(
  VesselItems,
  PickType(PageMetaDto, ['total_count'] as const),
  PagePosition,
  PickType(PageMetaDto, ['per_page'] as const),
  NextCursor,
) {}

export class VesselListResponseDto extends SuccessEnvelope(VesselPageDto) {}
