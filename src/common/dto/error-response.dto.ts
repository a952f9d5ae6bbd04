import { ApiProperty, ApiResponse } from '@nestjs/swagger';

export class ErrorResponseDto {
  @ApiProperty({ enum: ['error'], example: 'error' })
  status!: 'error';

  @ApiProperty({ example: 'Asset not found or clearance insufficient' })
  message!: string;

  @ApiProperty({ example: 'ASSET_ACCESS_DENIED' })
  error_code!: string;
}

/** The header every 401 carries, for the routes that document their own 401. */
export const WWW_AUTHENTICATE_HEADER = { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string' } } };

/** Documents one error response with the spec's body, a concrete example, and when it happens. */
export function ApiErrorResponse(status: number, errorCode: string, message: string, description: string, headers?: typeof WWW_AUTHENTICATE_HEADER) {
  return ApiResponse({ status, description, type: ErrorResponseDto, example: { status: 'error', message, error_code: errorCode }, headers });
}
