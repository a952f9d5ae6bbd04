import { Module } from '@nestjs/common';
import { DENIAL_RECORDER } from '../common';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, { provide: DENIAL_RECORDER, useExisting: AuditService }],
  exports: [AuditService, DENIAL_RECORDER],
})
export class AuditModule {}
