import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../auth';
import { ApiErrorResponse } from '../common';
import { RequestOrigin } from '../http';
import { ApiIdempotencyKeyMismatchResponse, IDEMPOTENCY_IN_USE, Idempotent, RETRY_AFTER_IN_USE } from '../idempotency';
import { ASSET_ACCESS_DENIED_MESSAGE, BATCH_REFUSED_EXAMPLE } from './assets.errors';
import { DECOMMISSION_REQUEST_ACTIONS } from './assets.vocabulary';
import { NOT_AUTHORIZING_OFFICER_MESSAGE, NOT_PENDING_MESSAGE, NOT_REJECTING_OFFICER_MESSAGE, NOT_REQUESTER_MESSAGE } from './decommission-requests.errors';
import { type ApprovedChange, DecommissionRequestsService } from './decommission-requests.service';
import { DecommissionResponseDto, RecommissionResponseDto } from './dto/asset.dto';
import { BatchDecommissionResponseDto } from './dto/batch-decommission.dto';
import {
  DecommissionRequestIdParamDto,
  DecommissionRequestListResponseDto,
  DecommissionRequestResponseDto,
  EXAMPLE_REJECTED_REQUEST_ID,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_WITHDRAWN_REQUEST_ID,
  REQUEST_ID_SCHEMA,
  ListDecommissionRequestsQueryDto,
} from './dto/decommission-request.dto';

/** The body of the direct route that the request stands for: DELETE's, the recommission's, or a batch's. */
type ApprovalResponse =
  | (Omit<DecommissionResponseDto | RecommissionResponseDto, 'data'> & { data: Exclude<ApprovedChange, { kind: 'batch' }>['asset'] })
  | BatchDecommissionResponseDto;

const NOT_FOUND = `Decommission request ${EXAMPLE_REQUEST_ID} not found`;
const STATE_CONFLICT = 'Not pending: approved, rejected or withdrawn (DECOMMISSION_REQUEST_NOT_PENDING), or expired (DECOMMISSION_REQUEST_EXPIRED)';

/** The second officer's side of a decommission or recommission under DECOMMISSION_APPROVAL=required (docs/api.md#two-officers-for-a-decommission). */
@ApiTags('decommission requests')
@Controller('v1/decommission-requests')
export class DecommissionRequestsController {
  constructor(private readonly requests: DecommissionRequestsService) {}

  @Get()
  @RequiresClearance(7, { action: DECOMMISSION_REQUEST_ACTIONS.read })
  @ApiOperation({
    summary: 'List decommission requests, newest first (clearance 7 or higher)',
    description: 'Pending requests past their expiry are marked expired (and audited) before the page is read. awaiting=me: the pending requests the caller is named to decide.',
  })
  @ApiOkResponse({ type: DecommissionRequestListResponseDto, description: 'A page of requests, newest first, and next_cursor' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'state must be one of the following values: pending, approved, rejected, withdrawn, expired', 'Invalid state, asset_id, awaiting, limit, page or cursor (VALIDATION_ERROR)')
  async list(
    @Query() query: ListDecommissionRequestsQueryDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<DecommissionRequestListResponseDto> {
    return { status: 'success', data: await this.requests.list(query, officer, origin) };
  }

  @Get(':request_id')
  @RequiresClearance(7, { action: DECOMMISSION_REQUEST_ACTIONS.read })
  @ApiOperation({ summary: 'Get a decommission request (clearance 7 or higher)', description: 'The Location of a DELETE answered 202. A pending request past its expiry is marked expired (and audited) first.' })
  @ApiOkResponse({ type: DecommissionRequestResponseDto, description: 'The request and its state' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'request_id must be a UUID', 'Invalid request id (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'DECOMMISSION_REQUEST_NOT_FOUND', NOT_FOUND, 'No request with that id (DECOMMISSION_REQUEST_NOT_FOUND)')
  async findOne(
    @Param() { request_id }: DecommissionRequestIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<DecommissionRequestResponseDto> {
    return { status: 'success', data: await this.requests.findOne(request_id, officer, origin) };
  }

  @Post(':request_id/approve')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @ApiIdempotencyKeyMismatchResponse()
  @RequiresClearance(7, { action: DECOMMISSION_REQUEST_ACTIONS.approve })
  @ApiOperation({
    summary: 'Approve a decommission request: the officer it names as authorized_by (clearance 7 or higher)',
    description:
      'Decommissions the asset as a direct DELETE does (or, for a request of kind recommission, recommissions it as a direct recommission does; for a request opened by a batch, decommissions every asset it holds as the direct batch does), and marks the request approved, in one transaction; of concurrent approvals exactly one succeeds. ' +
      'Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is authorized_by (403), request pending (409), asset active (404) or, for a recommission, asset decommissioned (409); for a batch request, every asset active (else 404 if any is absent, 409 otherwise, BATCH_DECOMMISSION_REFUSED listing them). ' +
      'A refused approval changes nothing: the request stays pending. Every attempt is audited.',
  })
  @ApiExtraModels(DecommissionResponseDto, RecommissionResponseDto, BatchDecommissionResponseDto)
  @ApiOkResponse({
    schema: { anyOf: [{ $ref: getSchemaPath(DecommissionResponseDto) }, { $ref: getSchemaPath(RecommissionResponseDto) }, { $ref: getSchemaPath(BatchDecommissionResponseDto) }] },
    description:
      "A request of kind decommission: the asset decommissioned, the spec's decommission body. Of kind recommission: the asset recommissioned, the recommission body. Opened by a batch (batch_id set): the direct batch's body, its batch_id the request's, each asset in the request's order",
  })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'request_id must be a UUID', 'Invalid request id (VALIDATION_ERROR)')
  @ApiErrorResponse(403, 'DECOMMISSION_REQUEST_FORBIDDEN', NOT_AUTHORIZING_OFFICER_MESSAGE, 'Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is not authorized_by (DECOMMISSION_REQUEST_FORBIDDEN)')
  @ApiErrorResponse(
    404,
    'DECOMMISSION_REQUEST_NOT_FOUND',
    NOT_FOUND,
    `No request with that id (DECOMMISSION_REQUEST_NOT_FOUND), or its asset is no longer active (ASSET_ACCESS_DENIED: ${ASSET_ACCESS_DENIED_MESSAGE}), or an asset of a batch request is absent (BATCH_DECOMMISSION_REFUSED: ${BATCH_REFUSED_EXAMPLE})`,
  )
  @ApiErrorResponse(
    409,
    'DECOMMISSION_REQUEST_NOT_PENDING',
    `${NOT_PENDING_MESSAGE}: it was approved`,
    `${STATE_CONFLICT}; a recommission's asset is active (ASSET_NOT_DECOMMISSIONED); an asset of a batch request is already decommissioned, listed (BATCH_DECOMMISSION_REFUSED); ${IDEMPOTENCY_IN_USE}`,
    RETRY_AFTER_IN_USE,
  )
  async approve(
    @Param() { request_id }: DecommissionRequestIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<ApprovalResponse> {
    const change = await this.requests.approve(request_id, officer, origin);
    if (change.kind === 'batch') {
      return { status: 'success', message: `${change.batch.decommissioned.length} assets decommissioned successfully`, data: change.batch };
    }
    const message = `Asset ${change.asset.asset_id} ${change.kind}ed successfully`;
    return { status: 'success', message, data: change.asset };
  }

  @Post(':request_id/reject')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @ApiIdempotencyKeyMismatchResponse()
  @RequiresClearance(7, { action: DECOMMISSION_REQUEST_ACTIONS.reject })
  @ApiOperation({
    summary: 'Reject a decommission request: the officer it names as authorized_by, or any officer of clearance 9 or higher',
    description:
      'The asset stays as it is. An officer of clearance 9 or higher may reject any pending request, named in it or not (a way out of requests naming officers who never answer); the rejection records that officer as its actor. ' +
      'Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is authorized_by or of clearance 9 or higher (403), request pending (409). Every attempt is audited.',
  })
  @ApiParam({ name: 'request_id', ...REQUEST_ID_SCHEMA, example: EXAMPLE_REJECTED_REQUEST_ID, description: 'The request_id the DELETE answered.' })
  @ApiOkResponse({ type: DecommissionRequestResponseDto, description: 'Rejected: the request, now rejected' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'request_id must be a UUID', 'Invalid request id (VALIDATION_ERROR)')
  @ApiErrorResponse(
    403,
    'DECOMMISSION_REQUEST_FORBIDDEN',
    NOT_REJECTING_OFFICER_MESSAGE,
    'Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is neither authorized_by nor of clearance 9 or higher (DECOMMISSION_REQUEST_FORBIDDEN)',
  )
  @ApiErrorResponse(404, 'DECOMMISSION_REQUEST_NOT_FOUND', NOT_FOUND, 'No request with that id (DECOMMISSION_REQUEST_NOT_FOUND)')
  @ApiErrorResponse(409, 'DECOMMISSION_REQUEST_NOT_PENDING', `${NOT_PENDING_MESSAGE}: it was approved`, `${STATE_CONFLICT}; ${IDEMPOTENCY_IN_USE}`, RETRY_AFTER_IN_USE)
  async reject(
    @Param() { request_id }: DecommissionRequestIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<DecommissionRequestResponseDto> {
    return { status: 'success', data: await this.requests.reject(request_id, officer, origin) };
  }

  @Post(':request_id/withdraw')
  @HttpCode(HttpStatus.OK)
  @Idempotent()
  @ApiIdempotencyKeyMismatchResponse()
  @RequiresClearance(7, { action: DECOMMISSION_REQUEST_ACTIONS.withdraw })
  @ApiOperation({
    summary: 'Withdraw a decommission request: the officer who made it (clearance 7 or higher)',
    description: 'The asset stays active. Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is requested_by (403), request pending (409). Every attempt is audited.',
  })
  @ApiParam({ name: 'request_id', ...REQUEST_ID_SCHEMA, example: EXAMPLE_WITHDRAWN_REQUEST_ID, description: 'The request_id the DELETE answered.' })
  @ApiOkResponse({ type: DecommissionRequestResponseDto, description: 'Withdrawn: the request, now withdrawn' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'request_id must be a UUID', 'Invalid request id (VALIDATION_ERROR)')
  @ApiErrorResponse(403, 'DECOMMISSION_REQUEST_FORBIDDEN', NOT_REQUESTER_MESSAGE, 'Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is not requested_by (DECOMMISSION_REQUEST_FORBIDDEN)')
  @ApiErrorResponse(404, 'DECOMMISSION_REQUEST_NOT_FOUND', NOT_FOUND, 'No request with that id (DECOMMISSION_REQUEST_NOT_FOUND)')
  @ApiErrorResponse(409, 'DECOMMISSION_REQUEST_NOT_PENDING', `${NOT_PENDING_MESSAGE}: it was approved`, `${STATE_CONFLICT}; ${IDEMPOTENCY_IN_USE}`, RETRY_AFTER_IN_USE)
  async withdraw(
    @Param() { request_id }: DecommissionRequestIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<DecommissionRequestResponseDto> {
    return { status: 'success', data: await this.requests.withdraw(request_id, officer, origin) };
  }
}
