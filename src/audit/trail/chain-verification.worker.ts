import { parentPort, workerData } from 'node:worker_threads';
import type { DatabaseLocation } from '../../config';
import { createDatabase, isDatabaseUnavailable } from '../../database';
import { AuditChainVerifier } from './audit-chain.verifier';
import { TrailRepository } from './trail.repository';
import type { VerificationOutcome } from './chain-verification-thread';

/** A thread's verification of the audit chain, on a connection of its own (see chain-verification-thread.ts). */
async function verifyChain(location: DatabaseLocation): Promise<VerificationOutcome> {
  const db = createDatabase(location);
  try {
    return { verified: await new AuditChainVerifier(new TrailRepository(db)).verify() };
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error), unavailable: isDatabaseUnavailable(error) };
  } finally {
    await db.destroy();
  }
}

void verifyChain((workerData as { location: DatabaseLocation }).location).then((outcome) => parentPort?.postMessage(outcome));
