import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { TokenModule } from '../auth';
import { ShutdownModule } from '../bootstrap';
import { RateLimitModule } from '../rate-limit';
import { HealthController } from './health.controller';

@Module({ imports: [ShutdownModule, AuditModule, RateLimitModule, TokenModule], controllers: [HealthController] })
export class HealthModule {}
