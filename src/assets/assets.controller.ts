import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../auth';
import { ApiErrorResponse, AUDIT_ACTIONS } from '../common';
import { RequestOrigin } from '../http';
import { ASSET_ACCESS_DENIED_MESSAGE, ASSET_NOT_DECOMMISSIONED_MESSAGE, AssetAccessDeniedError } from './assets.errors';
import { AssetsService } from './assets.service';
import {
  AssetIdParamDto,
  AssetListResponseDto,
  AssetResponseDto,
  DecommissionAssetDto,
  DecommissionResponseDto,
  ListAssetsQueryDto,
  RecommissionAssetDto,
  RecommissionResponseDto,
} from './dto/asset.dto';

/**
 * Whether an asset exists is told only to those who may decommission it (clearance 7): below that,
 * every asset route refuses before it reads an asset, with DELETE's answer.
 */
const REVEALS_ASSETS = { action: AUDIT_ACTIONS.readAsset, deniedError: AssetAccessDeniedError.forbidden };

@ApiTags('assets')
@Controller('v1/assets')
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @Delete(':asset_id')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(7, {
    action: AUDIT_ACTIONS.decommission,
    deniedError: AssetAccessDeniedError.forbidden,
  })
  @ApiOperation({
    summary: 'Decommission an asset (clearance 7 or higher)',
    description:
      'Removes an active asset from the active records. Checks run in order: token (401), clearance (403), input (400), asset active (404). Every attempt is audited.',
  })
  @ApiOkResponse({ type: DecommissionResponseDto, description: 'Decommissioned: the asset and its decommission fields as now stored' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'reason must not be blank', 'Invalid asset id or body (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED_MESSAGE, 'No active asset with that id (ASSET_ACCESS_DENIED)')
  async decommission(
    @Param() { asset_id }: AssetIdParamDto,
    @Body() body: DecommissionAssetDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<DecommissionResponseDto> {
    const data = await this.assets.decommission(asset_id, body, officer, origin);
    return { status: 'success', message: `Asset ${asset_id} decommissioned successfully`, data };
  }

  @Post(':asset_id/recommission')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(7, {
    action: AUDIT_ACTIONS.recommission,
    deniedError: AssetAccessDeniedError.forbidden,
  })
  @ApiOperation({
    summary: 'Recommission a decommissioned asset (clearance 7 or higher)',
    description:
      'Returns a decommissioned asset to the active records; its earlier decommission stays in the audit trail. Checks run in order: token (401), clearance (403), input (400), asset exists (404), asset decommissioned (409). Every attempt is audited.',
  })
  @ApiOkResponse({ type: RecommissionResponseDto, description: 'Recommissioned: the asset record, active again' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'reason must not be blank', 'Invalid asset id or body (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED_MESSAGE, 'No asset with that id (ASSET_ACCESS_DENIED)')
  @ApiErrorResponse(409, 'ASSET_NOT_DECOMMISSIONED', ASSET_NOT_DECOMMISSIONED_MESSAGE, 'The asset is active (ASSET_NOT_DECOMMISSIONED)')
  async recommission(
    @Param() { asset_id }: AssetIdParamDto,
    // Validated as DELETE's body is; its reason and officer are the audit event's details.
    @Body() body: RecommissionAssetDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<RecommissionResponseDto> {
    const data = await this.assets.recommission(asset_id, body, officer, origin);
    return { status: 'success', message: `Asset ${asset_id} recommissioned successfully`, data };
  }

  @Get(':asset_id')
  @RequiresClearance(7, REVEALS_ASSETS)
  @ApiOperation({ summary: 'Get an asset record, active or decommissioned (clearance 7 or higher)' })
  @ApiOkResponse({ type: AssetResponseDto, description: 'The asset record, with its status and decommission fields' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'asset_id must match ^[A-Z]{3}-[0-9]{4}$', 'Invalid asset id (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'ASSET_NOT_FOUND', 'Asset TIE-9999 not found', 'No asset with that id, active or not (ASSET_NOT_FOUND)')
  async findOne(@Param() { asset_id }: AssetIdParamDto): Promise<AssetResponseDto> {
    return { status: 'success', data: await this.assets.findOne(asset_id) };
  }

  @Get()
  @RequiresClearance(7, REVEALS_ASSETS)
  @ApiOperation({ summary: 'List assets, ordered by asset_id (clearance 7 or higher)' })
  @ApiOkResponse({ type: AssetListResponseDto, description: 'A page of assets, ordered by asset_id, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'status must be one of the following values: active, decommissioned', 'Invalid status, limit or page (VALIDATION_ERROR)')
  async list(@Query() query: ListAssetsQueryDto): Promise<AssetListResponseDto> {
    return { status: 'success', data: await this.assets.list(query) };
  }
}
