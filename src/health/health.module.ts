import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { ShutdownModule } from '../bootstrap';
import { HealthController } from './health.controller';

@Module({ imports: [ShutdownModule, AuditModule], controllers: [HealthController] })
export class HealthModule {}
