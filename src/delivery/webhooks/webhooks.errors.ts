import { HttpStatus } from '@nestjs/common';
import { ApiError, ResourceNotFoundError } from '../../common';

/** A webhook url whose scheme or address this instance refuses to call (docs/api.md#webhooks). */
export class WebhookUrlForbiddenError extends ApiError {
  readonly status = HttpStatus.BAD_REQUEST;
  readonly errorCode = 'WEBHOOK_URL_FORBIDDEN';
}

export class WebhookNotFoundError extends ResourceNotFoundError {
  constructor() {
    super('WEBHOOK_NOT_FOUND', 'Webhook subscription not found');
  }
}

/** WEBHOOK_SUBSCRIPTIONS_MAX reached: each subscription costs a delivery loop, a connection and a lease. */
export class WebhookLimitError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'WEBHOOK_LIMIT';
}

/** Production without WEBHOOK_SECRET_KEY_FILE: no secret can be stored, so no subscription is made or rotated. */
export class WebhooksUnavailableError extends ApiError {
  readonly status = HttpStatus.SERVICE_UNAVAILABLE;
  readonly errorCode = 'WEBHOOKS_UNAVAILABLE';
}
