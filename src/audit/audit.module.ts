import { Module } from '@nestjs/common';
import { TokenModule } from '../auth';
import { DENIAL_RECORDER } from '../common';
import { MetricsModule } from '../observability';
import { RateLimitModule } from '../rate-limit';
import { AuditController, AuditEventsService, AuditQueryRepository, AuditStream, AuditTilesController } from './api';
import { AuditChainVerifier, AuditTiles, AuditTree, AuditWitnesses, ChainVerificationGate, ChainVerificationThread, TrailRepository, WitnessRepository } from './trail';
import { AUDIT_LOG_PROVIDER, AuditLog, AuditService, AuditWriteRepository } from './write';

/** The audit trail in three rooms: write/ (appending decisions), trail/ (chain, tree, checkpoints, verification), api/ (reading it over HTTP). */
@Module({
  imports: [RateLimitModule, MetricsModule, TokenModule],
  controllers: [AuditController, AuditTilesController],
  providers: [
    AuditWriteRepository,
    AUDIT_LOG_PROVIDER,
    AuditService,
    TrailRepository,
    AuditTree,
    AuditTiles,
    WitnessRepository,
    AuditWitnesses,
    AuditChainVerifier,
    ChainVerificationThread,
    ChainVerificationGate,
    AuditQueryRepository,
    AuditEventsService,
    AuditStream,
    { provide: DENIAL_RECORDER, useExisting: AuditService },
  ],
  exports: [AuditService, AuditLog, AuditEventsService, AuditWitnesses, DENIAL_RECORDER],
})
export class AuditModule {}
