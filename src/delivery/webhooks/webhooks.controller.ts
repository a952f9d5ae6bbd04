import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../../auth';
import { ApiErrorResponse } from '../../common';
import { RequestOrigin } from '../../http';
import { WEBHOOK_ACTIONS } from '../delivery.vocabulary';
import {
  CreatedWebhookResponseDto,
  CreateWebhookDto,
  DeliveryAttemptListResponseDto,
  EXAMPLE_WEBHOOK_ID,
  ListWebhooksQueryDto,
  RotatedSecretResponseDto,
  WebhookIdParamDto,
  WebhookListResponseDto,
  WebhookResponseDto,
} from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

const ApiNotFound = () => ApiErrorResponse(404, 'WEBHOOK_NOT_FOUND', 'Webhook subscription not found', 'No subscription with that id (WEBHOOK_NOT_FOUND)');
const ApiBadId = () => ApiErrorResponse(400, 'VALIDATION_ERROR', 'id must be a UUID', 'Invalid id (VALIDATION_ERROR)');
const ApiUnavailable = () =>
  ApiErrorResponse(
    503,
    'WEBHOOKS_UNAVAILABLE',
    'Webhooks are off on this instance: WEBHOOK_SECRET_KEY_FILE is not set',
    'In production without WEBHOOK_SECRET_KEY_FILE no secret can be stored (WEBHOOKS_UNAVAILABLE); a storage failure (STORAGE_UNAVAILABLE)',
  );

/** Signed webhooks: who receives the trail's events, from where in the chain (docs/api.md#webhooks). */
@ApiTags('webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @RequiresClearance(9, { action: WEBHOOK_ACTIONS.create })
  @ApiOperation({
    summary: 'Subscribe a url to the trail: a signed POST per event (clearance 9 or higher)',
    description:
      'Checks run in order: token (401), clearance (403), body (400), url (400 WEBHOOK_URL_FORBIDDEN: scheme, or a host that is or resolves to a forbidden address), start (400), WEBHOOK_SUBSCRIPTIONS_MAX (409). ' +
      'The subscription, its place in the chain and its audit event (webhook.create) are written together. The secret is shown in this answer only.',
  })
  @ApiCreatedResponse({
    type: CreatedWebhookResponseDto,
    description: 'Created: the subscription and its secret',
    headers: { Location: { description: `The subscription: /v1/webhooks/${EXAMPLE_WEBHOOK_ID}`, schema: { type: 'string', pattern: '^/v1/webhooks/[0-9a-f-]{36}$', maxLength: 49 } } },
  })
  @ApiErrorResponse(
    400,
    'WEBHOOK_URL_FORBIDDEN',
    'url resolves to 127.0.0.1, a loopback address; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it',
    'Invalid body, naming the field (VALIDATION_ERROR), or a url this instance may not call (WEBHOOK_URL_FORBIDDEN)',
  )
  @ApiErrorResponse(409, 'WEBHOOK_LIMIT', 'This instance holds WEBHOOK_SUBSCRIPTIONS_MAX (100) webhook subscriptions; delete one first', 'WEBHOOK_SUBSCRIPTIONS_MAX subscriptions exist (WEBHOOK_LIMIT)')
  @ApiUnavailable()
  async create(
    @Body() body: CreateWebhookDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CreatedWebhookResponseDto> {
    const data = await this.webhooks.create(body, officer, origin);
    response.location(`/v1/webhooks/${data.id}`);
    return { status: 'success', data };
  }

  @Get()
  @RequiresClearance(7, { action: WEBHOOK_ACTIONS.read })
  @ApiOperation({ summary: 'List webhook subscriptions, newest first (clearance 7 or higher)', description: 'Without their secrets. Paged by limit and cursor.' })
  @ApiOkResponse({ type: WebhookListResponseDto, description: 'A page of subscriptions, newest first, and next_cursor' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'limit must be a whole number from 1 to 100', 'Invalid limit or cursor (VALIDATION_ERROR)')
  async list(@Query() query: ListWebhooksQueryDto): Promise<WebhookListResponseDto> {
    return { status: 'success', data: await this.webhooks.list(query) };
  }

  @Get(':id')
  @RequiresClearance(7, { action: WEBHOOK_ACTIONS.read })
  @ApiOperation({ summary: 'Get a webhook subscription and where its delivery stands (clearance 7 or higher)', description: 'Without its secret.' })
  @ApiOkResponse({ type: WebhookResponseDto, description: 'The subscription, its state and cursor' })
  @ApiBadId()
  @ApiNotFound()
  async findOne(@Param() { id }: WebhookIdParamDto): Promise<WebhookResponseDto> {
    return { status: 'success', data: await this.webhooks.findOne(id) };
  }

  @Delete(':id')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(9, { action: WEBHOOK_ACTIONS.delete })
  @ApiOperation({
    summary: 'Delete a webhook subscription (clearance 9 or higher)',
    description: 'Its deliveries stop; the subscription, its place in the chain and its attempts are removed with its audit event (webhook.delete), in one transaction. Answers 200 with what was deleted, as the other DELETE does.',
  })
  @ApiOkResponse({ type: WebhookResponseDto, description: 'Deleted: the subscription as it was' })
  @ApiBadId()
  @ApiNotFound()
  async delete(
    @Param() { id }: WebhookIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<WebhookResponseDto> {
    return { status: 'success', data: await this.webhooks.delete(id, officer, origin) };
  }

  @Post(':id/resume')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(9, { action: WEBHOOK_ACTIONS.resume })
  @ApiOperation({
    summary: 'Resume a webhook subscription from the event it stopped at (clearance 9 or higher)',
    description: 'state active, attempts 0, the next attempt at once; the cursor stays, so the event that failed is delivered first. Audited (webhook.resume), on an active subscription too.',
  })
  @ApiOkResponse({ type: WebhookResponseDto, description: 'The subscription, active' })
  @ApiBadId()
  @ApiNotFound()
  async resume(
    @Param() { id }: WebhookIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<WebhookResponseDto> {
    return { status: 'success', data: await this.webhooks.resume(id, officer, origin) };
  }

  @Post(':id/rotate-secret')
  @HttpCode(HttpStatus.OK)
  @RequiresClearance(9, { action: WEBHOOK_ACTIONS.rotateSecret })
  @ApiOperation({
    summary: "Replace a webhook subscription's secret (clearance 9 or higher)",
    description: 'The new secret is shown in this answer only. For 24 hours every delivery carries two signatures, the new secret\'s and the old one\'s, so the receiver can switch without losing any. Audited (webhook.rotate_secret).',
  })
  @ApiOkResponse({ type: RotatedSecretResponseDto, description: 'The new secret, and until when the old one signs too' })
  @ApiBadId()
  @ApiNotFound()
  @ApiUnavailable()
  async rotateSecret(
    @Param() { id }: WebhookIdParamDto,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @RequestOrigin() origin: RequestOrigin,
  ): Promise<RotatedSecretResponseDto> {
    return { status: 'success', data: await this.webhooks.rotateSecret(id, officer, origin) };
  }

  @Get(':id/deliveries')
  @RequiresClearance(7, { action: WEBHOOK_ACTIONS.read })
  @ApiOperation({ summary: "A webhook subscription's delivery attempts, newest first (clearance 7 or higher)", description: 'Each attempt: the event, its attempt number, the HTTP status or the error, how long it took, when. Paged by limit and cursor.' })
  @ApiOkResponse({ type: DeliveryAttemptListResponseDto, description: 'A page of attempts, newest first, and next_cursor' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'id must be a UUID', 'Invalid id, limit or cursor (VALIDATION_ERROR)')
  @ApiNotFound()
  async deliveries(@Param() { id }: WebhookIdParamDto, @Query() query: ListWebhooksQueryDto): Promise<DeliveryAttemptListResponseDto> {
    return { status: 'success', data: await this.webhooks.deliveries(id, query) };
  }
}
