import { type INestApplication, Injectable, Logger } from '@nestjs/common';

/** Set the moment a shutdown starts, so readiness turns a load balancer away before the server stops listening. */
@Injectable()
export class ShutdownState {
  private started = false;

  get isShuttingDown(): boolean {
    return this.started;
  }

  begin(): void {
    this.started = true;
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * SIGTERM and SIGINT drain the server instead of killing it: readiness answers 503, the requests in
 * flight get their answers, idle connections close, then the database (the steps log themselves in
 * the hooks that run them). Exit code 0 when all of that ends within the grace period, 1 past it.
 */
export function drainOnSignals(app: INestApplication, graceMs: number): void {
  const logger = new Logger('Shutdown');
  const drain = async (signal: NodeJS.Signals) => {
    const state = app.get(ShutdownState);
    if (state.isShuttingDown) {
      return;
    }
    state.begin();
    logger.log(`${signal} received: readiness answers 503, answering the requests in flight (grace ${graceMs} ms)`);
    setTimeout(() => {
      logger.error(`Shutdown still unfinished after SHUTDOWN_GRACE_MS=${graceMs}: exiting with code 1`);
      process.exit(1);
    }, graceMs);
    try {
      await app.close();
      logger.log('Shutdown complete: exiting with code 0');
      process.exit(0);
    } catch (error) {
      logger.error(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  };
  for (const signal of SIGNALS) {
    process.on(signal, (received: NodeJS.Signals) => void drain(received));
  }
}
