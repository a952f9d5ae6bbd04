import { Module } from '@nestjs/common';
import { ShutdownModule } from '../bootstrap';
import { HealthController } from './health.controller';

@Module({ imports: [ShutdownModule], controllers: [HealthController] })
export class HealthModule {}
