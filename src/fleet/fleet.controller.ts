import { Controller, Get, Headers, HttpStatus, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrorResponse } from '../common';
import { checkConditionField, CONDITION_FIELD_MAX_LENGTH, ifNoneMatchIncludes, REVALIDATE_ON_EVERY_USE } from '../http';
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
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'An ETag of an earlier answer, or a list of them: 304 while that page is unchanged.',
    schema: { type: 'string', maxLength: CONDITION_FIELD_MAX_LENGTH },
  })
  @ApiOkResponse({
    type: VesselListResponseDto,
    description: 'A page of vessels, ordered by id, the count of every match, and the cursor of the next page',
    headers: {
      ETag: { description: 'Strong; changes with any write to the vessels.', schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{27}"$', maxLength: 29 } },
      'Cache-Control': { description: 'The client may keep the page, and must revalidate it on every use', schema: { type: 'string', enum: [REVALIDATE_ON_EVERY_USE] } },
    },
  })
  @ApiResponse({ status: HttpStatus.NOT_MODIFIED, description: 'The page named by If-None-Match is unchanged; no body.' })
  @ApiErrorResponse(
    400,
    'VALIDATION_ERROR',
    'limit must be a whole number from 1 to 100',
    `Invalid limit, page, after or sector, page and after together, or an If-None-Match over ${CONDITION_FIELD_MAX_LENGTH} characters (VALIDATION_ERROR)`,
  )
  async listStarDestroyers(
    @Query() query: ListVesselsQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    checkConditionField('If-None-Match', ifNoneMatch);
    const listing = await this.fleet.openListing(query);
    res.setHeader('ETag', listing.etag);
    res.setHeader('Cache-Control', REVALIDATE_ON_EVERY_USE);
    if (ifNoneMatchIncludes(ifNoneMatch, listing.etag)) {
      res.status(HttpStatus.NOT_MODIFIED).end();
      return;
    }
    const body = await listing.body();
    // Ready JSON whose freshness is settled above: res.send would look up the type and check freshness again.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', body.length);
    res.end(body);
  }
}
