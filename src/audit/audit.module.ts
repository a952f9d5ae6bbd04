import { Module } from '@nestjs/common';
import { DENIAL_RECORDER } from '../common';
import { MetricsModule } from '../observability';
import { RateLimitModule } from '../rate-limit';
import { AuditChainVerifier } from './audit-chain.verifier';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({
  imports: [RateLimitModule, MetricsModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditChainVerifier, { provide: DENIAL_RECORDER, useExisting: AuditService }],
  exports: [AuditService, DENIAL_RECORDER],
})
export class AuditModule {}
