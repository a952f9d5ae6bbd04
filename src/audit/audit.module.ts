import { Module } from '@nestjs/common';
import { DENIAL_RECORDER } from '../common';
import { MetricsModule } from '../observability';
import { RateLimitModule } from '../rate-limit';
import { AuditChainVerifier } from './audit-chain.verifier';
import { ChainVerificationThread } from './chain-verification-thread';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditSequencer } from './audit-sequencer';
import { AuditStream } from './audit-stream';
import { AuditTree } from './audit-tree';

@Module({
  imports: [RateLimitModule, MetricsModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditSequencer, AuditStream, AuditChainVerifier, ChainVerificationThread, AuditTree, { provide: DENIAL_RECORDER, useExisting: AuditService }],
  exports: [AuditService, AuditSequencer, DENIAL_RECORDER],
})
export class AuditModule {}
