import { Module } from '@nestjs/common';
import { AuditChainVerifier } from './audit-chain.verifier';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditChainVerifier],
  exports: [AuditService],
})
export class AuditModule {}
