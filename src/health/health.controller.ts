import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../auth';
import { ApiErrorResponse, ServiceUnavailableError } from '../common';
import { DatabaseHealth } from '../database';

const UP = { status: 'success' } as const;
const DATABASE_UNREACHABLE = 'The database is unreachable';

@ApiTags('health')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  @ApiOkResponse({ schema: { example: UP } })
  live(): typeof UP {
    return UP;
  }

  @Get('ready')
  @ApiOperation({ summary: 'The service can reach its database' })
  @ApiOkResponse({ schema: { example: UP } })
  @ApiErrorResponse(503, 'SERVICE_UNAVAILABLE', DATABASE_UNREACHABLE)
  async ready(): Promise<typeof UP> {
    if (!(await this.database.isReachable())) {
      throw new ServiceUnavailableError(DATABASE_UNREACHABLE);
    }
    return UP;
  }
}
