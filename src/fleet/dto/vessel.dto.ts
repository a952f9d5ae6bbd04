import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageOf, PageQueryDto, SuccessEnvelope } from '../../common';
import { SECTORS, type Sector } from '../../database';

export class ListVesselsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SECTORS, description: 'Filters by galactic sector.' })
  @IsOptional()
  @IsIn(SECTORS)
  sector?: Sector;
}

export class VesselDto {
  @ApiProperty({ example: 'ISD-001', description: 'A short letter prefix, a hyphen and a number.' })
  id!: string;

  @ApiProperty({ example: 'Devastator' })
  name!: string;

  @ApiProperty({ example: 'Imperial I-class' })
  class!: string;

  @ApiProperty({ example: '1600 meters' })
  length!: string;

  @ApiProperty({ type: 'integer', example: 37085 })
  crew!: number;

  @ApiProperty({ example: 'Captain Piett' })
  commander!: string;

  @ApiProperty({ enum: SECTORS })
  sector!: Sector;

  @ApiProperty({ example: 'operational' })
  status!: string;
}

export class VesselPageDto extends PageOf('vessels', VesselDto) {}

export class VesselListResponseDto extends SuccessEnvelope(VesselPageDto) {}
