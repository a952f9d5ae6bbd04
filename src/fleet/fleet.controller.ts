import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse } from '../common';
import { ListVesselsQueryDto, VesselListResponseDto } from './dto/vessel.dto';
import { FleetService } from './fleet.service';

@ApiTags('fleet')
@Controller('v1/fleet')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @Get('star-destroyers')
  @ApiOperation({ summary: 'List fleet vessels, ordered by id', description: 'Any valid token. Optionally filtered by sector; paged by limit and page.' })
  @ApiOkResponse({ type: VesselListResponseDto, description: 'A page of vessels, ordered by id, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'limit must not be greater than 100', 'Invalid limit, page or sector (VALIDATION_ERROR)')
  async listStarDestroyers(@Query() query: ListVesselsQueryDto): Promise<VesselListResponseDto> {
    return { status: 'success', data: await this.fleet.listVessels(query) };
  }
}
