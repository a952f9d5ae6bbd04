import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyCheckpoint } from '../clients/typescript/src';
import { describeEachDatabase } from './support/databases';
import { listAuditEvents } from './support/http';
import { runScript, SCRIPTS } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';
import { waitFor, waitUntil } from './support/wait';
import { checkCosignature, makeWitness, type RunningWitness, startWitness, type TestWitness, verifierKey } from './support/witnesses';

const ORIGIN = 'registry.test/audit';

/** The checkpoint a caller gets, split into its text and its signature lines. */
interface Served {
  status: number;
  body: string;
  size: number;
  signatures: string[];
  note: string;
}

describeEachDatabase('witness cosignatures over the C2SP witness protocol', (engine) => {
  let dir: string;
  let logKeyFile: string;
  let logVkey: string;
  const witnesses: TestWitness[] = [];
  const running: RunningWitness[] = [];
  const apps: TestApp[] = [];

  /** A service on a fresh database with the same log key and origin, asking the witnesses with a quorum of 2. */
  const startLog = async () => {
    const app = await startTestApp({
      engine,
      env: {
        AUDIT_SIGNING_KEY_FILE: logKeyFile,
        AUDIT_LOG_ORIGIN: ORIGIN,
        AUDIT_CHECKPOINT_INTERVAL_MS: '100',
        AUDIT_WITNESSES: JSON.stringify(witnesses.map((witness, index) => ({ url: running[index].url, key: witness.vkey }))),
        AUDIT_WITNESS_QUORUM: '2',
        AUDIT_WITNESS_MAX_AGE: '4s',
      },
    });
    apps.push(app);
    return app;
  };

  /** Adds audit events: each refused read of the trail records its denial. */
  const addEvents = async (app: TestApp, count: number) => {
    for (let i = 0; i < count; i++) {
      await listAuditEvents(app, '', app.bearer('cadet', 1)).expect(403);
    }
  };

  const served = async (app: TestApp): Promise<Served> => {
    const res = await app.http().get('/v1/audit/checkpoint').set('Authorization', app.bearer('admiral', 7));
    const note = res.text;
    const [body, signatures = ''] = note.split('\n\n');
    return { status: res.status, body: `${body}\n`, size: Number(body.split('\n')[1]), signatures: signatures.split('\n').filter((line) => line !== ''), note };
  };

  const post = (url: string, body: string) => fetch(`${url}/add-checkpoint`, { method: 'POST', body });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'witness-e2e-'));
    const { privateKey } = generateKeyPairSync('ed25519');
    logKeyFile = join(dir, 'log.pem');
    writeFileSync(logKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    logVkey = verifierKey(ORIGIN, privateKey, 0x01);
    for (const name of ['w1.test/witness', 'w2.test/witness', 'w3.test/witness']) {
      witnesses.push(makeWitness(dir, name));
    }
    running.push(...(await Promise.all(witnesses.map((witness) => startWitness(witness, logVkey)))));
  });

  after(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await Promise.all(running.map((witness) => witness.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a checkpoint once two of three witnesses cosigned it, with their cosignatures, each valid by the specification', async () => {
    const app = await startLog();
    await addEvents(app, 5);
    const checkpoint = await waitFor(async () => {
      const got = await served(app);
      return got.status === 200 && got.size >= 5 ? got : undefined;
    }, 20_000);
    assert.equal(checkpoint.signatures[0].startsWith(`\u2014 ${ORIGIN} `), true, 'the log signature first');
    const cosigners = witnesses.filter((witness) => checkpoint.signatures.some((line) => checkCosignature(line, checkpoint.body, witness.name, witness.key) !== undefined));
    assert.ok(cosigners.length >= 2, `cosignatures: ${checkpoint.note}`);
    for (const line of checkpoint.signatures.slice(1)) {
      const time = witnesses.map((witness) => checkCosignature(line, checkpoint.body, witness.name, witness.key)).find((found) => found !== undefined);
      assert.ok(time !== undefined && Math.abs(time - Date.now() / 1000) < 60, `a valid, recent cosignature: ${line}`);
    }
  });

  it('audit:verify --witness-key ... --quorum accepts the checkpoint served and refuses it with fewer valid cosignatures, naming the witnesses', async () => {
    const [app] = apps;
    const checkpoint = await waitFor(async () => {
      const got = await served(app);
      return got.signatures.length === 4 ? got : undefined;
    }, 20_000);
    const file = join(dir, 'checkpoint.txt');
    const env = { DATABASE_URL: app.config.database.dialect === 'sqlite' ? `sqlite:${app.config.database.path}` : app.config.database.url };
    const verify = (note: string, ...args: string[]) => {
      writeFileSync(file, note);
      return runScript(SCRIPTS.auditVerify, ['--checkpoint', file, '--verifier-key', logVkey, ...witnesses.flatMap((witness) => ['--witness-key', witness.vkey]), ...args], { cwd: dir, env });
    };
    const cosigned = await verify(checkpoint.note, '--quorum', '2');
    assert.equal(cosigned.code, 0, cosigned.stderr);
    const [first, ...others] = checkpoint.signatures.slice(1);
    const tampered = first.slice(0, -6) + (first.at(-6) === 'A' ? 'B' : 'A') + first.slice(-5);
    const oneValid = await verify(`${checkpoint.body}\n${[checkpoint.signatures[0], tampered, ...others.slice(0, 1)].join('\n')}\n`, '--quorum', '2');
    assert.equal(oneValid.code, 1);
    assert.match(oneValid.stderr, /carries 1 valid witness cosignatures of the 2 required: invalid from w\d\.test\/witness; missing from w\d\.test\/witness/);
    const witnessKeys = witnesses.map((witness) => witness.vkey);
    const checked = await verifyCheckpoint(checkpoint.note, { logKey: logVkey, witnessKeys, quorum: 2 });
    assert.deepEqual([checked.size, checked.cosignedBy.length], [checkpoint.size, 3]);
    const tamperedNote = `${checkpoint.body}\n${[checkpoint.signatures[0], tampered, ...others.slice(0, 1)].join('\n')}\n`;
    await assert.rejects(verifyCheckpoint(tamperedNote, { logKey: logVkey, witnessKeys, quorum: 2 }), /1 valid witness cosignatures of the 2 required: invalid from w\d\.test\/witness; missing from w\d\.test\/witness/);
    const refused = await verify(checkpoint.note, '--quorum', '4');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^--quorum must be a whole number from 1 to the number of --witness-key given \(3\)/);
  });

  it('a witness refuses a forked log: 409 with the size it holds, 422 for a proof from it; the fork serves no checkpoint', async () => {
    const [original] = apps;
    const held = (await served(original)).size;
    const fork = await startLog();
    await addEvents(fork, held + 3);
    const forked = await waitFor(async () => {
      const res = await fork.http().get('/v1/audit/checkpoint/verifier-key').set('Authorization', fork.bearer('admiral', 7));
      assert.equal(res.text.trim(), logVkey, 'the same log key');
      const row = await fork.db.selectFrom('audit_checkpoint').select(['tree_size', 'note']).executeTakeFirst();
      return row && Number(row.tree_size) > held ? row.note : undefined;
    }, 20_000);
    const stale = await post(running[0].url, `old 0\n\n${forked}`);
    assert.equal(stale.status, 409);
    assert.equal(stale.headers.get('content-type'), 'text/x.tlog.size');
    const heldByWitness = Number(await stale.text());
    assert.ok(heldByWitness >= held, `holds ${heldByWitness}`);
    const forkedSize = Number(forked.split('\n')[1]);
    const proof = await fork.http().get(`/v1/audit/consistency-proof?first=${heldByWitness}&second=${forkedSize}`).set('Authorization', fork.bearer('admiral', 7));
    const lines = (proof.body as { data: { consistency_path: string[] } }).data.consistency_path.map((hash) => `${hash}\n`).join('');
    assert.equal((await post(running[0].url, `old ${heldByWitness}\n${lines}\n${forked}`)).status, 422);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const refused = await served(fork);
    assert.equal(refused.status, 503, refused.note);
    await fork.close();
    apps.pop();
  });

  it('a witness restarted keeps its state, even after SIGKILL, and cosigns again from it', async () => {
    const [app] = apps;
    const before = (await (await post(running[1].url, `old 0\n\n${(await served(app)).note}`)).text()).trim();
    await running[1].kill('SIGKILL');
    const restartedAt = Math.floor(Date.now() / 1000);
    running[1] = await startWitness(witnesses[1], logVkey, Number(new URL(running[1].url).port));
    const answer = await post(running[1].url, `old 0\n\n${(await served(app)).note}`);
    assert.equal(answer.status, 409);
    assert.ok(Number(await answer.text()) >= Number(before));
    await addEvents(app, 2);
    await waitUntil(
      async () => {
        const checkpoint = await served(app);
        return checkpoint.signatures.some((line) => (checkCosignature(line, checkpoint.body, witnesses[1].name, witnesses[1].key) ?? 0) >= restartedAt);
      },
      'the restarted witness cosigns the growing log again',
      20_000,
    );
  });

  it('readiness fails once the quorum of cosignatures is older than AUDIT_WITNESS_MAX_AGE, and liveness does not', async () => {
    const [app] = apps;
    await waitUntil(async () => (await app.http().get('/health/ready')).status === 200, 'ready while the witnesses cosign', 20_000);
    const ready = await app.http().get('/health/ready');
    assert.equal(typeof ready.body.audit_witness_quorum_age_seconds, 'number');
    await Promise.all(running.map((witness) => witness.kill('SIGKILL')));
    await waitUntil(async () => (await app.http().get('/health/ready')).status === 503, 'unready past the max age', 20_000);
    const unready = await app.http().get('/health/ready');
    assert.match(unready.body.message, /older than AUDIT_WITNESS_MAX_AGE/);
    assert.equal((await app.http().get('/health/live')).status, 200);
  });
});

describe('npm run audit:witness -- serve usage', () => {
  it('answers --help with exit code 0 and refuses a bad option in one line with exit code 2', async () => {
    const cwd = tmpdir();
    const help = await runScript(SCRIPTS.auditWitness, ['serve', '--help'], { cwd });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: npm run audit:witness -- serve --listen/);
    const missing = await runScript(SCRIPTS.auditWitness, ['serve', '--listen', 'localhost'], { cwd });
    assert.deepEqual([missing.code, missing.stderr], [2, '--listen must be <host>:<port>, such as 127.0.0.1:7380. Run npm run audit:witness -- serve --help for the options\n']);
  });
});
