import { Module } from '@nestjs/common';
import { Metrics } from './metrics';
import { ServingLoad } from './serving-load';

/** The registry and its instruments, for the services that count their decisions (assets, audit); and how busy the instance is answering requests (delivery yields to them). */
@Module({ providers: [Metrics, ServingLoad], exports: [Metrics, ServingLoad] })
export class MetricsModule {}
