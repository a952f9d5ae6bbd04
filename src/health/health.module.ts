import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { ConnectionDrain } from './connection-drain';
import { ShutdownState } from './graceful-shutdown';
import { HealthController } from './health.controller';

@Module({ imports: [AuditModule], controllers: [HealthController], providers: [ConnectionDrain, ShutdownState] })
export class HealthModule {}
