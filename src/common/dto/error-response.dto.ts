import { ApiProperty, ApiResponse } from '@nestjs/swagger';

export class ErrorResponseDto {
  @ApiProperty({ enum: ['error'], example: 'error' })
  status!: 'error';

  @ApiProperty({ example: 'Asset not found or clearance insufficient' })
  message!: string;

  @ApiProperty({ example: 'ASSET_ACCESS_DENIED' })
  error_code!: string;
}

/** Documents one error response with the spec's body, a concrete example, and when it happens. */
export function ApiErrorResponse(status: number, errorCode: string, message: string, description: string) {
  return ApiResponse({ status, description, type: ErrorResponseDto, example: { status: 'error', message, error_code: errorCode } });
}
