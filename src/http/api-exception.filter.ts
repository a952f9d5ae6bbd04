import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Inject, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  type ErrorResponseDto,
  ApiError,
  AuditedDenial,
  ERROR_MESSAGE_MAX_LENGTH,
  ServiceUnavailableError,
  DENIAL_RECORDER,
  type DenialRecorder,
  UNAVAILABILITY_CHECK,
  type UnavailabilityCheck,
} from '../common';
import { denialOf } from './audited-request';
import { requestOrigin } from './request-origin';

/** Codes for errors Nest or Express raise themselves (unknown route, bad URI encoding). */
const CODE_BY_STATUS: Partial<Record<number, string>> = {
  [HttpStatus.BAD_REQUEST]: 'VALIDATION_ERROR',
  [HttpStatus.UNAUTHORIZED]: 'UNAUTHENTICATED',
  [HttpStatus.FORBIDDEN]: 'FORBIDDEN',
  [HttpStatus.NOT_FOUND]: 'NOT_FOUND',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'METHOD_NOT_ALLOWED',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'PAYLOAD_TOO_LARGE',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'UNSUPPORTED_MEDIA_TYPE',
  [HttpStatus.TOO_MANY_REQUESTS]: 'RATE_LIMITED',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
  [HttpStatus.GATEWAY_TIMEOUT]: 'GATEWAY_TIMEOUT',
};

interface DescribedError {
  status: number;
  body: ErrorResponseDto;
  headers: Readonly<Record<string, string>>;
}

/** A message past the documented length (a validation naming many unknown fields, say) cut to it, ending in an ellipsis; never between the halves of a surrogate pair. */
const boundedMessage = (message: string) =>
  message.length > ERROR_MESSAGE_MAX_LENGTH ? `${message.slice(0, ERROR_MESSAGE_MAX_LENGTH - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : message;

function described(status: number, message: string, errorCode: string, headers: Readonly<Record<string, string>> = {}): DescribedError {
  return { status, body: { status: 'error', message: boundedMessage(message), error_code: errorCode }, headers };
}

/** The error body the filter answers an ApiError with: what a kept answer of it (Idempotency-Key) gives again. */
export function errorBodyOf(error: ApiError): ErrorResponseDto {
  return described(error.status, error.message, error.errorCode).body;
}

/**
 * The one place where any failure becomes the spec's error body, and where every denial is recorded:
 * guards run before interceptors, so only the filter layer sees the refusals of guards, pipes and
 * services alike.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(
    // Both required: without a recorder every denial would go unaudited, so the app refuses to start instead.
    @Inject(UNAVAILABILITY_CHECK) private readonly unavailability: UnavailabilityCheck,
    @Inject(DENIAL_RECORDER) private readonly denials: DenialRecorder,
  ) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const answer = await this.recordDenial(exception, request);
    const response = http.getResponse<Response>();
    const { status, body, headers } = this.describe(answer, request.requestId);
    if (response.headersSent) {
      return;
    }
    response.status(status).set(headers).json(body);
  }

  /**
   * Records an audited refusal (an AuditedDenial) before it is answered; a denial that cannot be
   * recorded is never answered as one. One with no action to record it under (its route declares none)
   * is a fault: answered 500, not as an unaudited refusal.
   */
  private async recordDenial(exception: unknown, request: Request): Promise<unknown> {
    if (!(exception instanceof AuditedDenial)) {
      return exception;
    }
    const denial = denialOf(exception, request);
    if (!denial) {
      return new Error(`${exception.constructor.name} (${exception.denialReason}) refused a request whose route declares no audited action`);
    }
    try {
      await this.denials.recordDenial(denial, requestOrigin(request));
      return exception;
    } catch (failure) {
      if (failure instanceof ApiError) {
        return failure;
      }
      this.logger.error(`audit trail not written, answering 503: ${failure instanceof Error ? failure.message : String(failure)}`, {
        request_id: request.requestId,
      });
      return new ServiceUnavailableError('The service is temporarily unavailable');
    }
  }

  /** The request id goes with every failure logged here, so its line leads to the request's access line and audit event. */
  private describe(exception: unknown, requestId: string): DescribedError {
    const unavailable = exception instanceof ApiError ? undefined : this.unavailability(exception);
    if (unavailable) {
      this.logger.warn(`database unavailable: ${exception instanceof Error ? exception.message : String(exception)}`, { request_id: requestId });
      return this.describe(unavailable, requestId);
    }
    if (exception instanceof ApiError) {
      return described(exception.status, exception.message, exception.errorCode, exception.headers);
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      const message = exception instanceof NotFoundException ? 'Route not found' : exception.message;
      return described(status, message, CODE_BY_STATUS[status] ?? 'REQUEST_REJECTED');
    }
    this.logger.error(exception instanceof Error ? exception : String(exception), { request_id: requestId });
    // A server-side HttpException keeps its status (a 503 stays a 503), never its message.
    const status = exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    const code = CODE_BY_STATUS[status];
    return code
      ? described(status, 'The service cannot answer this request right now', code)
      : described(status, 'Internal server error', 'INTERNAL_ERROR');
  }
}
