import { Module } from '@nestjs/common';
import { ConnectionDrain } from './connection-drain';
import { ShutdownState } from './graceful-shutdown';
import { HealthController } from './health.controller';

@Module({ controllers: [HealthController], providers: [ConnectionDrain, ShutdownState] })
export class HealthModule {}
