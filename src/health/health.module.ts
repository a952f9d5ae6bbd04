import { Module } from '@nestjs/common';
import { ConnectionDrain } from './connection-drain';
import { HealthController } from './health.controller';

@Module({ controllers: [HealthController], providers: [ConnectionDrain] })
export class HealthModule {}
