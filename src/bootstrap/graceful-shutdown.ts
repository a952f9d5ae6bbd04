import { setTimeout as sleep } from 'node:timers/promises';
import { type INestApplication, Injectable, Logger } from '@nestjs/common';
import type { ServerConfig } from '../config';

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
 * SIGTERM and SIGINT drain the server instead of killing it: readiness answers 503 at once. After a
 * SIGTERM the server goes on accepting and answering for SHUTDOWN_DELAY_MS, each answer closing its
 * connection, since a load balancer keeps sending until its checks have seen the 503; a SIGINT comes
 * from a terminal, with no load balancer to wait for. Then the server stops accepting, the requests
 * in flight get their answers, idle connections close, then the database (the steps log themselves in
 * the hooks that run them). Exit code 0 when the drain ends within SHUTDOWN_GRACE_MS, 1 past it.
 */
export function drainOnSignals(app: INestApplication, { shutdownGraceMs, shutdownDelayMs }: Pick<ServerConfig, 'shutdownGraceMs' | 'shutdownDelayMs'>): void {
  const logger = new Logger('Shutdown');
  const drain = async (signal: NodeJS.Signals) => {
    const state = app.get(ShutdownState);
    if (state.isShuttingDown) {
      return;
    }
    state.begin();
    const delayMs = signal === 'SIGTERM' ? shutdownDelayMs : 0;
    logger.log(
      `${signal} received: readiness answers 503; serving on for ${delayMs} ms (SHUTDOWN_DELAY_MS), each connection closed after its answer, then answering the requests in flight (grace ${shutdownGraceMs} ms)`,
    );
    await sleep(delayMs);
    setTimeout(() => {
      logger.error(`Shutdown still unfinished after SHUTDOWN_GRACE_MS=${shutdownGraceMs}: exiting with code 1`);
      process.exit(1);
    }, shutdownGraceMs);
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
