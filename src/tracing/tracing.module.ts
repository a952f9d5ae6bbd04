import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

@Injectable()
class TracesExportedOnShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}

/** The spans of the last requests are exported before the process exits. */
@Module({ providers: [TracesExportedOnShutdown] })
export class TracingModule {}
