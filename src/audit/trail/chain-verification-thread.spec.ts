import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceUnavailableError } from '../../common';
import { loadAppConfig } from '../../config';
import { createDatabase } from '../../database';
import { AuditChainVerifier } from './audit-chain.verifier';
import { ChainVerificationThread } from './chain-verification-thread';
import { TrailRepository } from './trail.repository';

describe('ChainVerificationThread', () => {
  it("answers 503 when the thread's own connection finds the database unreachable", async () => {
    // Nothing listens on port 1: the connection is refused at once.
    const config = loadAppConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', DATABASE_CONNECT_TIMEOUT_MS: '500' }, '/nonexistent');
    // The verifier in this thread serves sqlite::memory: alone; on PostgreSQL the walk is the worker's.
    const unused = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    const thread = new ChainVerificationThread(config, new AuditChainVerifier(new TrailRepository(unused)));

    await assert.rejects(thread.verify(), ServiceUnavailableError);
    await unused.destroy();
  });
});
