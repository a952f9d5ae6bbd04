import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../auth';
import { ApiErrorResponse, ServiceUnavailableError } from '../common';
import { DatabaseHealth } from '../database';
import { ShutdownState } from '../bootstrap';

const UP = { status: 'success' } as const;
const DATABASE_UNREACHABLE = 'The database is unreachable';
const SHUTTING_DOWN = 'The instance is shutting down';

@ApiTags('health')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  @ApiOkResponse({ schema: { example: UP }, description: 'The process answers' })
  live(): typeof UP {
    return UP;
  }

  @Get('ready')
  @ApiOperation({ summary: 'The service can reach its database and is not shutting down' })
  @ApiOkResponse({ schema: { example: UP }, description: 'Ready: the database answers and the instance is not shutting down' })
  @ApiErrorResponse(503, 'SERVICE_UNAVAILABLE', DATABASE_UNREACHABLE, 'SERVICE_UNAVAILABLE: the database is unreachable, or the instance is shutting down')
  async ready(): Promise<typeof UP> {
    if (this.shutdown.isShuttingDown) {
      throw new ServiceUnavailableError(SHUTTING_DOWN);
    }
    if (!(await this.database.isReachable())) {
      throw new ServiceUnavailableError(DATABASE_UNREACHABLE);
    }
    return UP;
  }
}
