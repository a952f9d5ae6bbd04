import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

/** The window the load is judged over: short enough that background work yields within a tenth of a second, long enough to hold many requests. */
export const LOAD_WINDOW_MS = 100;
/** The part of a window the event loop must have been busy for the instance to count as at capacity. */
export const BUSY_PART = 0.9;

/**
 * Whether this instance is answering requests as fast as its one event loop can, for the background work
 * that must yield to them (webhook and syslog delivery): over the last LOAD_WINDOW_MS the loop was at
 * least BUSY_PART busy (Node's event loop utilization) and requests were answered. Both, because a loop
 * kept busy by the background work alone has nothing to yield to.
 */
@Injectable()
export class ServingLoad implements OnModuleDestroy {
  private answered = 0;
  private answeredAtLastSample = 0;
  private utilizationAtLastSample: EventLoopUtilization = performance.eventLoopUtilization();
  private busyAnswering = false;
  private readonly sampler = setInterval(() => this.sample(), LOAD_WINDOW_MS).unref();

  /** Called by the request observer for every answer. */
  requestAnswered(): void {
    this.answered++;
  }

  get atCapacity(): boolean {
    return this.busyAnswering;
  }

  onModuleDestroy(): void {
    clearInterval(this.sampler);
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, this.utilizationAtLastSample);
    this.busyAnswering = window.utilization >= BUSY_PART && this.answered > this.answeredAtLastSample;
    this.utilizationAtLastSample = now;
    this.answeredAtLastSample = this.answered;
  }
}
