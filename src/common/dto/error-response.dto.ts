import { ApiProperty } from '@nestjs/swagger';

export class ErrorResponseDto {
  @ApiProperty({ enum: ['error'], example: 'error' })
  status!: 'error';

  @ApiProperty({ example: 'Asset not found or clearance insufficient' })
  message!: string;

  @ApiProperty({ example: 'ASSET_ACCESS_DENIED' })
  error_code!: string;
}
