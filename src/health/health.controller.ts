import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditLog, AuditWitnesses } from '../audit';
import { Public, TokenService } from '../auth';
import { ApiErrorResponse, ServiceUnavailableError } from '../common';
import { DatabaseClockCheck, DatabaseHealth } from '../database';
import { ShutdownState } from '../bootstrap';
import { LimitStoreHealth, Unthrottled } from '../rate-limit';

const UP = { status: 'success' } as const;
const DATABASE_UNREACHABLE = 'The database is unreachable';
const SHUTTING_DOWN = 'The instance is shutting down';
const AUDIT_LAGGING = "The audit trail's sequencing lags";
const STORAGE_FAILING = 'The database cannot store data (disk full, read-only or failing)';
const LIMIT_STORE_UNREACHABLE = 'The rate-limit store (Redis) is unreachable';
const CLOCK_SKEWED = "The instance's clock differs from the database's by more than CLOCK_SKEW_MAX_MS";
const JWKS_UNAVAILABLE = "The identity provider's key set (JWKS) cannot be fetched and the last good one is too old: no key of it is trusted";
const WITNESS_QUORUM_STALE = 'The latest audit checkpoint cosigned by AUDIT_WITNESS_QUORUM witnesses is older than AUDIT_WITNESS_MAX_AGE';
const JWKS_STALE = "The identity provider's key set (JWKS) cannot be refreshed: the last good one is used for up to JWT_JWKS_STALE_SECONDS past its age";

/** Ready, with what an operator should know that does not make the instance unready. */
interface Ready {
  status: 'success';
  warnings?: string[];
  /** With a witness quorum: how old the served checkpoint's quorum of cosignatures is. */
  audit_witness_quorum_age_seconds?: number;
}

@ApiTags('health')
@Public()
@Unthrottled()
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly shutdown: ShutdownState,
    private readonly auditLog: AuditLog,
    private readonly limitStore: LimitStoreHealth,
    private readonly clock: DatabaseClockCheck,
    private readonly tokens: TokenService,
    private readonly witnesses: AuditWitnesses,
  ) {}

  @Get('live')
  @ApiOperation({
    summary: 'The process is up',
    description: 'Answers while the process runs, whatever the database: an orchestrator restarts an instance that stops answering. No token, no rate limit.',
  })
  @ApiOkResponse({ schema: { example: UP }, description: 'The process answers' })
  live(): typeof UP {
    return UP;
  }

  @Get('ready')
  @ApiOperation({
    summary: 'The instance can take traffic',
    description:
      "It can reach its database and its rate-limit store, trusts a JWKS not too old, its clock agrees with the database's, its audit events find their place in time, its witness-cosigned checkpoint is not too old, and it is not shutting down. " +
      'No token, no rate limit: a load balancer sends traffic only to instances that answer 200.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['success'] },
        warnings: { type: 'array', maxItems: 1, items: { type: 'string', enum: [JWKS_STALE] } },
        audit_witness_quorum_age_seconds: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: 2_147_483_647,
          description: "With AUDIT_WITNESS_QUORUM: seconds since the served checkpoint's quorum of cosignatures (before any, since the instance started)",
        },
      },
      example: { status: 'success', warnings: [JWKS_STALE], audit_witness_quorum_age_seconds: 12 },
    },
    description: 'Ready. `warnings`, when present, says what an operator should know that does not make the instance unready: a JWKS served stale while its provider cannot be reached',
  })
  @ApiErrorResponse(
    503,
    'SERVICE_UNAVAILABLE',
    DATABASE_UNREACHABLE,
    "SERVICE_UNAVAILABLE: the database or the rate-limit store (Redis) is unreachable, the database failed to store data in the last 10 s, the JWKS cannot be fetched and the last good one is older than its max-age + JWT_JWKS_STALE_SECONDS, the instance's clock differs from the database's by more than CLOCK_SKEW_MAX_MS (PostgreSQL), the audit trail's sequencing lags past AUDIT_READINESS_LAG_MS, the latest checkpoint cosigned by AUDIT_WITNESS_QUORUM witnesses is older than AUDIT_WITNESS_MAX_AGE, or the instance is shutting down",
  )
  async ready(): Promise<Ready> {
    if (this.shutdown.isShuttingDown) {
      throw new ServiceUnavailableError(SHUTTING_DOWN);
    }
    if (!(await this.database.isReachable())) {
      throw new ServiceUnavailableError(DATABASE_UNREACHABLE);
    }
    if (!this.database.isStoring()) {
      throw new ServiceUnavailableError(STORAGE_FAILING);
    }
    if (!this.limitStore.isReachable()) {
      throw new ServiceUnavailableError(LIMIT_STORE_UNREACHABLE);
    }
    const jwks = this.tokens.jwksHealth();
    if (jwks === 'unavailable') {
      throw new ServiceUnavailableError(JWKS_UNAVAILABLE);
    }
    if (this.clock.isSkewed()) {
      throw new ServiceUnavailableError(CLOCK_SKEWED);
    }
    if (this.auditLog.isLagging()) {
      throw new ServiceUnavailableError(AUDIT_LAGGING);
    }
    const quorumAge = await this.witnesses.quorumAgeSeconds();
    if (quorumAge !== undefined && quorumAge > this.witnesses.maxAgeSeconds) {
      throw new ServiceUnavailableError(WITNESS_QUORUM_STALE);
    }
    return { ...UP, ...(jwks === 'stale' ? { warnings: [JWKS_STALE] } : {}), ...(quorumAge === undefined ? {} : { audit_witness_quorum_age_seconds: quorumAge }) };
  }
}
