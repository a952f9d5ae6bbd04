import { ApiProperty, ApiResponse, type HeaderObject } from '@nestjs/swagger';

/** The longest message an error body carries: a longer one (a validation naming many fields) is cut. */
export const ERROR_MESSAGE_MAX_LENGTH = 1024;

export class ErrorResponseDto {
  @ApiProperty({ enum: ['error'], example: 'error' })
  status!: 'error';

  @ApiProperty({ maxLength: ERROR_MESSAGE_MAX_LENGTH, example: 'Asset not found or clearance insufficient' })
  message!: string;

  @ApiProperty({ pattern: '^[A-Z_]+$', maxLength: 64, example: 'ASSET_ACCESS_DENIED' })
  error_code!: string;
}

/** The header every 401 carries, for the routes that document their own 401. */
export const WWW_AUTHENTICATE_HEADER = { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', enum: ['Bearer'] } } };

/** Documents one error response with the spec's body, a concrete example, and when it happens. */
export function ApiErrorResponse(status: number, errorCode: string, message: string, description: string, headers?: Record<string, HeaderObject>) {
  return ApiResponse({ status, description, type: ErrorResponseDto, example: { status: 'error', message, error_code: errorCode }, headers });
}
