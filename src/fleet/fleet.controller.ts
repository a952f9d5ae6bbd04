import { Controller, Get, Headers, HttpStatus, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrorResponse } from '../common';
import { ifNoneMatchIncludes, REVALIDATE_ON_EVERY_USE } from '../http';
import { ListVesselsQueryDto, VesselListResponseDto } from './dto/vessel.dto';
import { FleetService } from './fleet.service';

@ApiTags('fleet')
@Controller('v1/fleet')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @Get('star-destroyers')
  @ApiOperation({
    summary: 'List fleet vessels, ordered by id',
    description: 'Any valid token. Optionally filtered by sector; paged by limit and page, or by limit and the keyset cursor after.',
  })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag of an earlier answer: 304 while that page is unchanged.' })
  @ApiOkResponse({
    type: VesselListResponseDto,
    description: 'A page of vessels, ordered by id, the count of every match, and the cursor of the next page',
    headers: {
      ETag: { description: 'Strong; changes with any write to the vessels.', schema: { type: 'string' } },
      'Cache-Control': { description: REVALIDATE_ON_EVERY_USE, schema: { type: 'string' } },
    },
  })
  @ApiResponse({ status: HttpStatus.NOT_MODIFIED, description: 'The page named by If-None-Match is unchanged; no body.' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'limit must be a whole number from 1 to 100', 'Invalid limit, page, after or sector, or page and after together (VALIDATION_ERROR)')
  async listStarDestroyers(
    @Query() query: ListVesselsQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const listing = await this.fleet.openListing(query);
    res.set({ ETag: listing.etag, 'Cache-Control': REVALIDATE_ON_EVERY_USE });
    if (ifNoneMatchIncludes(ifNoneMatch, listing.etag)) {
      res.status(HttpStatus.NOT_MODIFIED).end();
      return;
    }
    const body = await listing.body();
    // Ready JSON whose freshness is settled above: res.send would look up the type, copy the body into
    // a Buffer to measure it and check freshness again.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}
