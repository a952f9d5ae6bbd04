import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Inject, Logger, NotFoundException, Optional } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError, ServiceUnavailableError } from '../errors/api-error';
import { UNAVAILABILITY_CHECK, type UnavailabilityCheck } from '../errors/unavailability';
import type { ErrorResponseDto } from '../dto/error-response.dto';

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

function described(status: number, message: string, errorCode: string, headers: Readonly<Record<string, string>> = {}): DescribedError {
  return { status, body: { status: 'error', message, error_code: errorCode }, headers };
}

/** The one place where any failure becomes the spec's error body. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(@Optional() @Inject(UNAVAILABILITY_CHECK) private readonly isUnavailable: UnavailabilityCheck = () => false) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = this.describe(exception);
    if (response.headersSent) {
      return;
    }
    response.status(status).set(headers).json(body);
  }

  private describe(exception: unknown): DescribedError {
    if (!(exception instanceof ApiError) && this.isUnavailable(exception)) {
      this.logger.warn(`database unavailable: ${exception instanceof Error ? exception.message : String(exception)}`);
      return this.describe(new ServiceUnavailableError('The service is temporarily unavailable'));
    }
    if (exception instanceof ApiError) {
      return described(exception.status, exception.message, exception.errorCode, exception.headers);
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      const message = exception instanceof NotFoundException ? 'Route not found' : exception.message;
      return described(status, message, CODE_BY_STATUS[status] ?? 'REQUEST_REJECTED');
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    // A server-side HttpException keeps its status (a 503 stays a 503), never its message.
    const status = exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
    const code = CODE_BY_STATUS[status];
    return code
      ? described(status, 'The service cannot answer this request right now', code)
      : described(status, 'Internal server error', 'INTERNAL_ERROR');
  }
}
