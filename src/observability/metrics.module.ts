import { Module } from '@nestjs/common';
import { Metrics } from './metrics';

/** The registry and its instruments, for the services that count their decisions (assets, audit). */
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}
