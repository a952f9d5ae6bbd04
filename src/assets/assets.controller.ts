import { applyDecorators, Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../auth';
import { ApiErrorResponse } from '../common';
import { APPROVAL_TTL_MAX_SECONDS } from '../config';
import type { DecommissionRequestKind } from '../database';
import { ApiIdempotencyKeyMismatchResponse, IDEMPOTENCY_IN_USE, IDEMPOTENCY_MISMATCH, Idempotent, RETRY_AFTER_IN_USE } from '../idempotency';
import { checkConditionField, CONDITION_FIELD_MAX_LENGTH, CONDITION_FIELD_SCHEMA, ifNoneMatchIncludes, RequestOrigin, REVALIDATE_ON_EVERY_USE } from '../http';
import { assetEntityTag } from './asset-entity-tag';
import { ASSET_ACCESS_DENIED_MESSAGE, ASSET_NOT_DECOMMISSIONED_MESSAGE, AssetAccessDeniedError, BATCH_REFUSED_EXAMPLE, BATCH_REQUEST_REFUSED_EXAMPLE, PRECONDITION_FAILED_MESSAGE } from './assets.errors';
import { AssetsService } from './assets.service';
import { ASSET_ACTIONS } from './assets.vocabulary';
import { DecommissionPolicy } from './decommission-policy';
import { AUTHORIZED_BY_IS_CALLER_MESSAGE, requestLimitMessage } from './decommission-requests.errors';
import { BatchDecommissionDto, BatchDecommissionResponseDto } from './dto/batch-decommission.dto';
import { DecommissionRequestsService } from './decommission-requests.service';
import { type DecommissionRequestDto, DecommissionRequestResponseDto, EXAMPLE_REQUEST_ID } from './dto/decommission-request.dto';
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
const REVEALS_ASSETS = { action: ASSET_ACTIONS.read, deniedError: AssetAccessDeniedError.forbidden };

/** DECOMMISSION_APPROVAL=required: the 202 that a change waiting for its second officer answers. */
const ApiPendingRequestResponse = (kind: DecommissionRequestKind, holds = 'the asset stays as it is') =>
  ApiResponse({
    status: HttpStatus.ACCEPTED,
    type: DecommissionRequestResponseDto,
    description: `DECOMMISSION_APPROVAL=required: a pending request of kind ${kind}; ${holds} until authorized_by approves it`,
    headers: { Location: { description: `The request: /v1/decommission-requests/${EXAMPLE_REQUEST_ID}`, schema: { type: 'string', pattern: '^/v1/decommission-requests/[0-9a-f-]{36}$', maxLength: 61 } } },
  });

const ETAG_HEADER = {
  description: "Strong: the asset record's entity tag, as GET /v1/assets/{asset_id} answers it, for an If-Match on its next decision",
  schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{27}"$', maxLength: 29 },
} as const;

/** If-Match on a decision about one asset: its header, and the 412 it may answer. */
const ApiIfMatch = (needs: string) =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: `An ETag of the asset record (GET /v1/assets/{asset_id}), a list of them, or * (any record): the decision is taken only while the record is one it names, else 412 and nothing changes. Checked once the asset is found ${needs}.`,
      schema: CONDITION_FIELD_SCHEMA,
    }),
    ApiErrorResponse(412, 'PRECONDITION_FAILED', PRECONDITION_FAILED_MESSAGE, 'If-Match names none of the asset\'s current record: it changed since it was read (PRECONDITION_FAILED); nothing changed, and the refusal is audited'),
  );

const ApiAuthorizedByIsCallerResponse = () =>
  ApiErrorResponse(422, 'AUTHORIZED_BY_IS_CALLER', AUTHORIZED_BY_IS_CALLER_MESSAGE, `DECOMMISSION_APPROVAL=required: authorized_by names the caller (AUTHORIZED_BY_IS_CALLER); ${IDEMPOTENCY_MISMATCH}`);

const ApiRequestLimitResponse = () =>
  ApiErrorResponse(
    429,
    'DECOMMISSION_REQUEST_LIMIT',
    requestLimitMessage(5),
    'DECOMMISSION_APPROVAL=required: the caller already holds DECOMMISSION_REQUESTS_PER_OFFICER pending requests (DECOMMISSION_REQUEST_LIMIT)',
    { 'Retry-After': { description: 'Seconds until the oldest of those requests expires', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: APPROVAL_TTL_MAX_SECONDS } } },
  );

@ApiTags('assets')
@Controller('v1/assets')
export class AssetsController {
  constructor(
    private readonly assets: AssetsService,
    private readonly requests: DecommissionRequestsService,
    private readonly policy: DecommissionPolicy,
  ) {}

  @Post('decommissions')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @RequiresClearance(7, {
    action: ASSET_ACTIONS.decommission,
    deniedError: AssetAccessDeniedError.forbidden,
  })
  @ApiOperation({
    summary: 'Decommission up to 100 assets at once, all or none (clearance 7 or higher)',
    description:
      'Every asset named must exist and be active; otherwise nothing changes and the answer lists every offending id with why. Checks run in order: token (401), clearance (403, whatever the ids), input (400), assets (404 if any is absent, else 409). ' +
      "Each asset gets its own asset.decommission event carrying the batch_id, all committed in one transaction with the changes; of concurrent batches and DELETEs over the same assets, each asset is decommissioned once. " +
      'With DECOMMISSION_APPROVAL=required the batch opens one decommission request holding every asset instead (202), all or none, which the officer named in authorized_by approves once, decommissioning them all: ' +
      "an asset in another pending request is refused as an absent or decommissioned one is (409, naming that request), authorized_by must be another officer's token subject (422), and an officer holding DECOMMISSION_REQUESTS_PER_OFFICER pending requests gets 429 (the batch counts as one request).",
  })
  @ApiOkResponse({ type: BatchDecommissionResponseDto, description: "Decommissioned, every one: the batch's id and each asset's decommission, in the order asset_ids gave" })
  @ApiPendingRequestResponse('decommission', 'its asset_ids, in the order given, stay active')
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'asset_ids must not name an asset twice', 'Invalid body: asset_ids not 1 to 100 distinct asset ids, reason or authorized_by (VALIDATION_ERROR)')
  @ApiErrorResponse(
    404,
    'BATCH_DECOMMISSION_REFUSED',
    BATCH_REFUSED_EXAMPLE,
    'An asset named does not exist (BATCH_DECOMMISSION_REFUSED): the message lists every absent, every decommissioned one and, with DECOMMISSION_APPROVAL=required, every one in another pending request; nothing changed, no request opened',
  )
  @ApiErrorResponse(
    409,
    'BATCH_DECOMMISSION_REFUSED',
    BATCH_REQUEST_REFUSED_EXAMPLE,
    `All exist, but some are already decommissioned or, with DECOMMISSION_APPROVAL=required, in another pending request (named after them), listed in the message (BATCH_DECOMMISSION_REFUSED); nothing changed, no request opened; ${IDEMPOTENCY_IN_USE}`,
    RETRY_AFTER_IN_USE,
  )
  @ApiAuthorizedByIsCallerResponse()
  @ApiRequestLimitResponse()
  @ApiIdempotencyKeyMismatchResponse()
  async decommissionBatch(
    @Body() body: BatchDecommissionDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchDecommissionResponseDto | DecommissionRequestResponseDto> {
    return this.policy.underPolicy(async (approvalRequired) => {
      if (approvalRequired) {
        return this.pendingRequest(await this.requests.openBatch(body.asset_ids, body, officer, origin), response);
      }
      const data = await this.assets.decommissionBatch(body.asset_ids, body, officer, origin);
      return { status: 'success', message: `${data.decommissioned.length} assets decommissioned successfully`, data };
    });
  }

  @Delete(':asset_id')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @RequiresClearance(7, {
    action: ASSET_ACTIONS.decommission,
    deniedError: AssetAccessDeniedError.forbidden,
  })
  @ApiOperation({
    summary: 'Decommission an asset (clearance 7 or higher)',
    description:
      'Removes an active asset from the active records. Checks run in order: token (401), clearance (403), input (400), asset active (404). Every attempt is audited. ' +
      'With DECOMMISSION_APPROVAL=required it opens a decommission request instead (202), which the officer named in authorized_by approves with their own token: ' +
      'authorized_by must then be that officer\'s token subject, not the caller\'s (422), an asset with a pending request gets 409, and an officer holding DECOMMISSION_REQUESTS_PER_OFFICER pending requests 429.',
  })
  @ApiOkResponse({ type: DecommissionResponseDto, description: 'Decommissioned: the asset and its decommission fields as now stored', headers: { ETag: ETAG_HEADER } })
  @ApiPendingRequestResponse('decommission')
  @ApiIfMatch('and active')
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'reason must not be blank', `Invalid asset id or body, or an If-Match over ${CONDITION_FIELD_MAX_LENGTH} characters (VALIDATION_ERROR)`)
  @ApiErrorResponse(404, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED_MESSAGE, 'No active asset with that id (ASSET_ACCESS_DENIED)')
  @ApiErrorResponse(
    409,
    'DECOMMISSION_REQUEST_PENDING',
    `Asset TIE-0001 already has a pending decommission request: ${EXAMPLE_REQUEST_ID}`,
    `DECOMMISSION_APPROVAL=required: the asset has a pending request, named in the message (DECOMMISSION_REQUEST_PENDING); ${IDEMPOTENCY_IN_USE}`,
    RETRY_AFTER_IN_USE,
  )
  @ApiAuthorizedByIsCallerResponse()
  @ApiRequestLimitResponse()
  async decommission(
    @Param() { asset_id }: AssetIdParamDto,
    @Body() body: DecommissionAssetDto,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DecommissionResponseDto | DecommissionRequestResponseDto> {
    checkConditionField('If-Match', ifMatch);
    return this.policy.underPolicy(async (approvalRequired) => {
      if (approvalRequired) {
        return this.openRequest('decommission', asset_id, body, ifMatch, officer, origin, response);
      }
      const data = await this.assets.decommission(asset_id, body, officer, origin, { ifMatch });
      response.setHeader('ETag', assetEntityTag({ ...data, status: 'decommissioned' }));
      return { status: 'success', message: `Asset ${asset_id} decommissioned successfully`, data };
    });
  }

  @Post(':asset_id/recommission')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @RequiresClearance(7, {
    action: ASSET_ACTIONS.recommission,
    deniedError: AssetAccessDeniedError.forbidden,
  })
  @ApiOperation({
    summary: 'Recommission a decommissioned asset (clearance 7 or higher)',
    description:
      'Returns a decommissioned asset to the active records; its earlier decommission stays in the audit trail. Checks run in order: token (401), clearance (403), input (400), asset exists (404), asset decommissioned (409). Every attempt is audited. ' +
      'With DECOMMISSION_APPROVAL=required it opens a request of kind recommission instead (202), approved as a decommission request is, under the same rules: ' +
      "authorized_by must be another officer's token subject (422), an asset with a pending request gets 409, and an officer holding DECOMMISSION_REQUESTS_PER_OFFICER pending requests 429.",
  })
  @ApiOkResponse({ type: RecommissionResponseDto, description: 'Recommissioned: the asset record, active again', headers: { ETag: ETAG_HEADER } })
  @ApiPendingRequestResponse('recommission')
  @ApiIfMatch('and decommissioned')
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'reason must not be blank', `Invalid asset id or body, or an If-Match over ${CONDITION_FIELD_MAX_LENGTH} characters (VALIDATION_ERROR)`)
  @ApiErrorResponse(404, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED_MESSAGE, 'No asset with that id (ASSET_ACCESS_DENIED)')
  @ApiErrorResponse(
    409,
    'ASSET_NOT_DECOMMISSIONED',
    ASSET_NOT_DECOMMISSIONED_MESSAGE,
    `The asset is active (ASSET_NOT_DECOMMISSIONED), or, with DECOMMISSION_APPROVAL=required, it has a pending request, named in the message (DECOMMISSION_REQUEST_PENDING); ${IDEMPOTENCY_IN_USE}`,
    RETRY_AFTER_IN_USE,
  )
  @ApiAuthorizedByIsCallerResponse()
  @ApiRequestLimitResponse()
  async recommission(
    @Param() { asset_id }: AssetIdParamDto,
    // Validated as DELETE's body is; its reason and officer are the audit event's details.
    @Body() body: RecommissionAssetDto,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RecommissionResponseDto | DecommissionRequestResponseDto> {
    checkConditionField('If-Match', ifMatch);
    return this.policy.underPolicy(async (approvalRequired) => {
      if (approvalRequired) {
        return this.openRequest('recommission', asset_id, body, ifMatch, officer, origin, response);
      }
      const data = await this.assets.recommission(asset_id, body, officer, origin, { ifMatch });
      response.setHeader('ETag', assetEntityTag(data));
      return { status: 'success', message: `Asset ${asset_id} recommissioned successfully`, data };
    });
  }

  @Get(':asset_id')
  @RequiresClearance(7, REVEALS_ASSETS)
  @ApiOperation({
    summary: 'Get an asset record, active or decommissioned (clearance 7 or higher)',
    description:
      'Below clearance 7 the answer is 403 ASSET_ACCESS_DENIED whatever the id, so that whether an asset exists is told only to an officer who may decommission it; ' +
      'the refusal is audited (asset.read). Only then is the id checked (400) and the asset looked up (404). ' +
      'The ETag names the record: send it as If-Match on a decision about the asset, or as If-None-Match here (304 while the record is unchanged).',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'An ETag of an earlier answer, a list of them, or *: 304 while the record is unchanged.',
    schema: CONDITION_FIELD_SCHEMA,
  })
  @ApiOkResponse({
    type: AssetResponseDto,
    description: 'The asset record, with its status and decommission fields',
    headers: {
      ETag: ETAG_HEADER,
      'Cache-Control': { description: 'The client may keep the record, and must revalidate it on every use', schema: { type: 'string', enum: [REVALIDATE_ON_EVERY_USE] } },
    },
  })
  @ApiResponse({ status: HttpStatus.NOT_MODIFIED, description: 'The record named by If-None-Match is unchanged; no body.' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'asset_id must match ^[A-Z]{3}-[0-9]{4}$', `Invalid asset id, or an If-None-Match over ${CONDITION_FIELD_MAX_LENGTH} characters (VALIDATION_ERROR)`)
  @ApiErrorResponse(404, 'ASSET_NOT_FOUND', 'Asset TIE-9999 not found', 'No asset with that id, active or not (ASSET_NOT_FOUND)')
  async findOne(
    @Param() { asset_id }: AssetIdParamDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AssetResponseDto | undefined> {
    checkConditionField('If-None-Match', ifNoneMatch);
    const asset = await this.assets.findOne(asset_id);
    const etag = assetEntityTag(asset);
    response.setHeader('ETag', etag).setHeader('Cache-Control', REVALIDATE_ON_EVERY_USE);
    if (ifNoneMatchIncludes(ifNoneMatch, etag)) {
      response.status(HttpStatus.NOT_MODIFIED);
      return undefined;
    }
    return { status: 'success', data: asset };
  }

  @Get()
  @RequiresClearance(7, REVEALS_ASSETS)
  @ApiOperation({
    summary: 'List assets, ordered by asset_id (clearance 7 or higher)',
    description: 'Active and decommissioned assets, optionally filtered by status, paged by limit and page. Below clearance 7: 403 ASSET_ACCESS_DENIED, audited (asset.read).',
  })
  @ApiOkResponse({ type: AssetListResponseDto, description: 'A page of assets, ordered by asset_id, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'status must be one of the following values: active, decommissioned', 'Invalid status, limit or page (VALIDATION_ERROR)')
  async list(@Query() query: ListAssetsQueryDto): Promise<AssetListResponseDto> {
    return { status: 'success', data: await this.assets.list(query) };
  }

  /** DECOMMISSION_APPROVAL=required: the change waits for a second officer; 202 with the request and its Location. */
  private async openRequest(
    kind: DecommissionRequestKind,
    assetId: string,
    body: DecommissionAssetDto,
    ifMatch: string | undefined,
    officer: AuthenticatedOfficer,
    origin: RequestOrigin,
    response: Response,
  ): Promise<DecommissionRequestResponseDto> {
    return this.pendingRequest(await this.requests.open(kind, assetId, body, officer, origin, ifMatch), response);
  }

  /** A request opened: 202, and its Location. */
  private pendingRequest(request: DecommissionRequestDto, response: Response): DecommissionRequestResponseDto {
    response.status(HttpStatus.ACCEPTED).location(`/v1/decommission-requests/${request.request_id}`);
    return { status: 'success', data: request };
  }
}
