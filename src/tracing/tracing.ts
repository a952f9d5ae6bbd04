import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingConfig } from '../config';

let sdk: NodeSDK | undefined;

/**
 * Starts the SDK, which from then on patches http, express, pg and ioredis as they load: so before
 * anything loads them (src/instrument.ts). Required here rather than imported, so that with traces off
 * the SDK is never loaded at all.
 */
export function startTracing(config: TracingConfig): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when traces are on
  const { createTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  sdk = createTracingSdk(config);
  sdk.start();
}

/** Exports the spans still buffered and stops the SDK; nothing when it was not started. */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
