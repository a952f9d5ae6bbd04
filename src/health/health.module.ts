import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { ShutdownModule } from '../bootstrap';
import { RateLimitModule } from '../rate-limit';
import { HealthController } from './health.controller';

@Module({ imports: [ShutdownModule, AuditModule, RateLimitModule], controllers: [HealthController] })
export class HealthModule {}
