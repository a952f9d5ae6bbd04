import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable } from '@nestjs/common';
import { ServiceUnavailableError } from '../../common';
import { DATABASE_CONFIG, type DatabaseConfig, type DatabaseLocation } from '../../config';
import { AuditChainVerifier, type ChainVerification } from './audit-chain.verifier';

/** What the worker posts: the verification, or why it could not finish. */
export type VerificationOutcome = { verified: ChainVerification } | { failure: string; unavailable: boolean };

/**
 * A thread's own connection needs no more than one: the walk reads one batch at a time. On PostgreSQL it
 * is named for what it does (application_name `<the server's>:audit-verify`), so pg_stat_activity shows it.
 */
function oneConnection(location: DatabaseLocation): DatabaseLocation {
  if (location.dialect !== 'postgres') {
    return location;
  }
  const url = new URL(location.url);
  url.searchParams.set('application_name', `${url.searchParams.get('application_name') ?? 'fleet-registry'}:audit-verify`);
  return { ...location, url: url.toString(), poolSize: 1 };
}

/**
 * Verifies the audit chain for the route on a worker thread with a connection of its own, so that the
 * walk (its reads, which SQLite answers synchronously, its hashing, and the garbage both leave) never
 * holds the event loop that answers every other request. An in-memory SQLite database cannot be opened
 * twice: it is walked in this thread, in slices that yield (AuditChainVerifier).
 */
@Injectable()
export class ChainVerificationThread {
  constructor(
    @Inject(DATABASE_CONFIG) private readonly config: DatabaseConfig,
    private readonly inProcess: AuditChainVerifier,
  ) {}

  async verify(): Promise<ChainVerification> {
    const { database } = this.config;
    if (database.dialect === 'sqlite' && database.path === ':memory:') {
      return this.inProcess.verify();
    }
    const worker = new Worker(join(__dirname, 'chain-verification.worker.js'), { workerData: { location: oneConnection(database) } });
    const outcome = await new Promise<VerificationOutcome>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the verification thread exited with code ${code} before it answered`)));
    });
    if ('verified' in outcome) {
      return outcome.verified;
    }
    if (outcome.unavailable) {
      throw new ServiceUnavailableError('The service is temporarily unavailable');
    }
    throw new Error(`audit chain verification failed: ${outcome.failure}`);
  }
}
