import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Query, Req } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AUDIT_ACTIONS, originOf } from '../audit';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../auth';
import { ErrorResponseDto } from '../common';
import { AssetAccessDeniedError } from './assets.errors';
import { AssetsService } from './assets.service';
import {
  AssetIdParamDto,
  AssetListResponseDto,
  AssetResponseDto,
  DecommissionAssetDto,
  DecommissionResponseDto,
  ListAssetsQueryDto,
} from './dto/asset.dto';

@ApiTags('assets')
@Controller('v1/assets')
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @Delete(':asset_id')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(7, {
    action: AUDIT_ACTIONS.decommission,
    deniedError: () => new AssetAccessDeniedError(HttpStatus.FORBIDDEN),
  })
  @ApiOperation({
    summary: 'Decommission an asset (clearance 7 or higher)',
    description:
      'Removes an active asset from the active records. Checks run in order: token (401), clearance (403), input (400), asset active (404). Every attempt is audited.',
  })
  @ApiOkResponse({ type: DecommissionResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid asset id or body' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No active asset with that id (ASSET_ACCESS_DENIED)' })
  async decommission(
    @Param() { asset_id }: AssetIdParamDto,
    @Body() body: DecommissionAssetDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @Req() request: Request,
  ): Promise<DecommissionResponseDto> {
    const data = await this.assets.decommission(asset_id, body, officer, originOf(request));
    return { status: 'success', message: `Asset ${asset_id} decommissioned successfully`, data };
  }

  @Get(':asset_id')
  @ApiOperation({ summary: 'Get an asset record, active or decommissioned' })
  @ApiOkResponse({ type: AssetResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'ASSET_NOT_FOUND' })
  async findOne(@Param() { asset_id }: AssetIdParamDto): Promise<AssetResponseDto> {
    return { status: 'success', data: await this.assets.findOne(asset_id) };
  }

  @Get()
  @ApiOperation({ summary: 'List assets, ordered by asset_id' })
  @ApiOkResponse({ type: AssetListResponseDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  async list(@Query() query: ListAssetsQueryDto): Promise<AssetListResponseDto> {
    return { status: 'success', data: await this.assets.list(query) };
  }
}
