import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditSigningKeyFile } from './support/key-files';
import { logLines, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { TEST_SECRET, tokenServiceFor } from './support/tokens';
import { waitFor } from './support/wait';

/** What the server and audit:verify say of a key file others may read: the file, its mode in octal, and the fix. */
const exposure = (file: string) => `AUDIT_SIGNING_KEY_FILE ${file} has mode 0644: others than its owner may read or change this private key`;
const fix = (file: string) => `Run chmod 600 ${file}`;

describe('an audit signing key file others may read', () => {
  const readable = auditSigningKeyFile(0o644);
  const ownersOnly = auditSigningKeyFile(0o600);
  let cwd: string;
  let server: RunningServer;
  const env = (more: Record<string, string>) => ({ JWT_SECRET: TEST_SECRET, SEED_DEMO: 'false', ...more });

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-key-'));
    server = await startServer({ cwd, env: env({ AUDIT_SIGNING_KEY_FILE: readable }) });
  });
  after(async () => {
    await server.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('stops the server in production, in one line naming the file, its mode and the fix, before it creates anything', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'fleet-registry-key-'));
    try {
      const result = await runScript(SCRIPTS.server, [], { cwd: elsewhere, env: env({ NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: readable }) });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr, `Invalid configuration: ${exposure(readable)}, which NODE_ENV=production refuses. ${fix(readable)}\n`);
      assert.ok(!existsSync(join(elsewhere, 'data')));
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('outside production, starts and logs one warning line saying the same', () => {
    const warnings = logLines(server).filter((line) => line.msg.includes('AUDIT_SIGNING_KEY_FILE'));
    assert.deepEqual(warnings, [{ ...warnings[0], level: 'warn', msg: `${exposure(readable)}, which NODE_ENV=production refuses. ${fix(readable)}` }]);
  });

  it('audit:verify --checkpoint, which reads the key, refuses it in production and warns outside it', async () => {
    const token = tokenServiceFor().issue('admiral-7', 7, '5m');
    const note = await waitFor(async () => {
      const reply = await fetch(`${server.url}/v1/audit/checkpoint`, { headers: { Authorization: `Bearer ${token}` } });
      return reply.ok ? reply.text() : undefined;
    });
    writeFileSync(join(cwd, 'checkpoint.txt'), note);
    const verify = (more: Record<string, string>) => runScript(SCRIPTS.auditVerify, ['--checkpoint', 'checkpoint.txt'], { cwd, env: more });

    const refused = await verify({ NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: readable });
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stderr, `Invalid configuration: ${exposure(readable)}, which NODE_ENV=production refuses. ${fix(readable)}\n`);

    const warned = await verify({ AUDIT_SIGNING_KEY_FILE: readable });
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stdout, /^Audit chain intact: .*checkpoint's root/);
    assert.equal(warned.stderr, `${exposure(readable)}, which NODE_ENV=production refuses. ${fix(readable)}\n`);

    // The same key, readable by its owner alone: no word about it, in production or not.
    for (const runtime of [{ NODE_ENV: 'production' }, {}] as Record<string, string>[]) {
      const quiet = await verify({ ...runtime, AUDIT_SIGNING_KEY_FILE: ownersOnly });
      assert.deepEqual([quiet.code, quiet.stderr], [0, '']);
    }
  });
});
