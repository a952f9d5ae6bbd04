import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { migrateAndImport, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { SyslogReceiver } from './support/syslog-receiver';
import { waitUntil } from './support/wait';

const ASSETS = Array.from({ length: 200 }, (_, index) => `SYS-${String(index).padStart(4, '0')}`);

/**
 * The server, a real process with AUDIT_SYSLOG_URL, is SIGKILLed while it decides and sends, and started
 * again: every event of the chain still reaches the receiver, in chain order; only events in flight at the
 * kill may come twice.
 */
describeEachDatabase('the syslog feed through a SIGKILL of the server', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let db: Kysely<DB>;
  let receiver: SyslogReceiver;
  let server: RunningServer;
  let env: Record<string, string>;
  let officer: string;
  let cadet: string;
  let sent = 0;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-syslog-crash-'));
    database = await createTestDatabase(engine, cwd);
    receiver = await SyslogReceiver.start();
    env = {
      DATABASE_URL: database.url,
      JWT_SECRET: 'syslog-crash-secret-of-at-least-32-chars',
      SEED_DEMO: 'false',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_ENABLED: 'false',
      AUDIT_SYSLOG_URL: `tcp://127.0.0.1:${receiver.port}`,
      WEBHOOK_RETRY_BASE_MS: '20',
      // The killed instance's lease runs out soon, so its successor takes the feed over quickly.
      WEBHOOK_LEASE_MS: '1500',
    };
    await migrateAndImport(cwd, env, { vessels: [], assets: ASSETS.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' })) });
    officer = (await runScript(SCRIPTS.token, ['--sub', 'officer', '--clearance', '7'], { cwd, env })).stdout.trim();
    cadet = (await runScript(SCRIPTS.token, ['--sub', 'cadet', '--clearance', '6'], { cwd, env })).stdout.trim();
    db = createDatabase(loadAppConfig({ DATABASE_URL: database.url }, cwd).database);
  });
  after(async () => {
    await server?.stop();
    await receiver.stop();
    await db?.destroy();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** Decides until `done()`: an officer's decommission of the next asset, or a cadet's refused one. A request the kill cuts is let go. */
  async function decideUntil(done: () => boolean): Promise<void> {
    while (!done()) {
      const n = sent++;
      try {
        const response = await fetch(`${server.url}/v1/assets/${ASSETS[Math.floor(n / 2)]}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${n % 2 === 0 ? officer : cadet}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(DECOMMISSION_BODY),
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
      } catch {
        return;
      }
    }
  }

  it('sends every event of the chain after the server is killed mid-stream and started again', { timeout: 120_000 }, async (t) => {
    server = await startServer({ cwd, env });
    const { cursor: startHead } = await db.selectFrom('delivery_feeds').select('cursor').where('feed_id', '=', 'syslog').executeTakeFirstOrThrow();

    const deciding = decideUntil(() => false);
    await waitUntil(() => receiver.messages.length >= 20, 'the feed sent nothing before the kill');
    server.child.kill('SIGKILL');
    const receivedAtKill = receiver.messages.length;
    await deciding;
    server = await startServer({ cwd, env });
    const sentBefore = sent;
    await decideUntil(() => sent >= sentBefore + 20);

    const chain = (await db.selectFrom('audit_events').select('id').where('id', '>', startHead).orderBy('id').execute()).map((event) => event.id);
    const received = () => [...new Set(receiver.messages.map((message) => Number(new Map(message.structuredData[0].params).get('id'))))];
    await waitUntil(
      () => receiver.errors.length > 0 || received().length >= chain.length,
      () => `${received().length} of the chain's ${chain.length} events came`,
      30_000,
    );
    assert.deepEqual(receiver.errors, []);
    assert.deepEqual(received(), chain, 'every event once at least, in chain order');
    assert.ok(receiver.connections >= 2, 'the restarted server opened a connection of its own');
    t.diagnostic(`${chain.length} events, ${receivedAtKill} received at the kill, ${receiver.messages.length - chain.length} received twice`);
  });
});
