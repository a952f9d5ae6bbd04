import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth';
import { ErrorResponseDto, ServiceUnavailableError } from '../common';
import { DatabaseHealth } from '../database';

const UP = { status: 'success' } as const;

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up', security: [] })
  @ApiOkResponse({ schema: { example: UP } })
  live(): typeof UP {
    return UP;
  }

  @Get('ready')
  @ApiOperation({ summary: 'The service can reach its database', security: [] })
  @ApiOkResponse({ schema: { example: UP } })
  @ApiServiceUnavailableResponse({ type: ErrorResponseDto })
  async ready(): Promise<typeof UP> {
    if (!(await this.database.isReachable())) {
      throw new ServiceUnavailableError('The database is unreachable');
    }
    return UP;
  }
}
