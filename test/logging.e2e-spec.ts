import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runScript, SCRIPTS, startServer } from './support/processes';
import { tokenServiceFor } from './support/tokens';

const SECRET = 'logging-test-secret-of-at-least-32-chars';
const BODY_TEXT = 'Reactor breach in sector seven, a body that no log may carry';
const REQUEST_ID = 'logging-test-decommission';

interface LogLine {
  time: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

describe('logs of the server process', () => {
  let cwd: string;
  let token: string;
  let lines: LogLine[];
  let output: string;
  let url: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-logging-'));
    token = tokenServiceFor({ JWT_SECRET: SECRET }).issue('officer-7', 7, '1h');
    const server = await startServer({ cwd, env: { JWT_SECRET: SECRET, DATABASE_URL: 'sqlite::memory:' } });
    url = server.url;
    try {
      const bearer = { Authorization: `Bearer ${token}` };
      const deleted = await fetch(`${server.url}/v1/assets/TIE-0001`, {
        method: 'DELETE',
        headers: { ...bearer, 'Content-Type': 'application/json', 'X-Request-Id': REQUEST_ID },
        body: JSON.stringify({ reason: BODY_TEXT, authorized_by: 'Grand Moff Tarkin' }),
      });
      assert.equal(deleted.status, 200);
      assert.equal((await fetch(`${server.url}/v1/fleet/star-destroyers`, { headers: { Authorization: `Bearer ${token}x` } })).status, 401);
      assert.equal((await fetch(`${server.url}/v1/nowhere?page=2`)).status, 404);
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    output = server.output();
    lines = output.trimEnd().split('\n').map((line) => JSON.parse(line) as LogLine);
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  const accessLine = (predicate: (line: LogLine) => boolean) => {
    const found = lines.filter((line) => line.msg === 'request completed' && predicate(line));
    assert.equal(found.length, 1, output);
    return found[0];
  };

  it('writes one JSON object a line, each with a UTC time and a level, start-up and shutdown included', () => {
    for (const line of lines) {
      assert.match(line.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(['fatal', 'error', 'warn', 'info', 'debug', 'trace'].includes(line.level), line.level);
    }
    assert.ok(lines.some((line) => /listening on/.test(line.msg)));
    assert.ok(lines.some((line) => /^SIGTERM received/.test(line.msg)));
    assert.ok(lines.some((line) => /exiting with code 0/.test(line.msg)));
    assert.ok(!output.includes('\u001b['), 'no colour codes');
    assert.deepEqual(lines.filter((line) => /^(InstanceLoader|RoutesResolver|RouterExplorer)$/.test(String(line.context))), [], "Nest's wiring is for LOG_LEVEL=debug");
  });

  it('says where it listens and links Swagger UI at an address a browser opens, not 0.0.0.0; the server timeouts only at debug', () => {
    const { port } = new URL(url);
    const listening = lines.filter((line) => /listening on/.test(line.msg));
    assert.deepEqual(listening.map(({ level, msg }) => ({ level, msg })), [
      { level: 'info', msg: `fleet-registry listening on http://0.0.0.0:${port} (Swagger UI: http://localhost:${port}/docs)` },
    ]);
    assert.deepEqual(lines.filter((line) => /request timeout/.test(line.msg)), [], 'internal detail, for LOG_LEVEL=debug');
  });

  it('writes an access line for an allowed decommission: request id, method, route, status, latency, token subject', () => {
    const line = accessLine((candidate) => candidate.request_id === REQUEST_ID);
    assert.equal(line.level, 'info');
    assert.equal(line.method, 'DELETE');
    assert.equal(line.path, '/v1/assets/TIE-0001');
    assert.equal(line.route, '/v1/assets/:asset_id');
    assert.equal(line.status, 200);
    assert.equal(typeof line.duration_ms, 'number');
    assert.ok((line.duration_ms as number) > 0);
    assert.equal(line.actor, 'officer-7');
  });

  it('writes access lines for requests refused by a guard and for unknown routes, with their path and without a subject when the token was not valid', () => {
    const refused = accessLine((candidate) => candidate.status === 401);
    assert.equal(refused.route, '/v1/fleet/star-destroyers');
    assert.equal(refused.actor, undefined);
    assert.match(String(refused.request_id), /^[0-9a-f-]{36}$/);
    const unmatched = accessLine((candidate) => candidate.status === 404);
    assert.deepEqual([unmatched.path, unmatched.route], ['/v1/nowhere', 'unmatched']);
  });

  it('logs the denial with the request id', () => {
    assert.ok(lines.some((line) => line.level === 'warn' && /denied auth\.authenticate \(TOKEN_INVALID\)/.test(line.msg) && typeof line.request_id === 'string'));
  });

  it('never logs a token, the Authorization header or a body', () => {
    assert.ok(!output.includes(token), 'the token');
    assert.ok(!output.includes(token.split('.')[1]), "the token's claims");
    assert.doesNotMatch(output, /authorization|bearer/i);
    assert.ok(!output.includes(BODY_TEXT.split(',')[0]), 'the body');
    assert.ok(!output.includes('Grand Moff Tarkin'), 'the body');
  });
});

describe('LOG_LEVEL', () => {
  it('refuses a level it does not know, in one line naming the levels', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-log-level-'));
    try {
      const result = await runScript(SCRIPTS.server, [], { cwd, env: { JWT_SECRET: SECRET, LOG_LEVEL: 'loud' } });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^Invalid configuration: LOG_LEVEL must be one of the following values: fatal, error, warn, info, debug, trace/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
