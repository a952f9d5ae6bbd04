import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { loadAppConfig } from '../src/config';

const ROOT = resolve(__dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  stop_grace_period?: string;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
}

function readCompose(): { services: Record<string, ComposeService> } {
  // Compose reads YAML 1.2 with merge keys (`<<: *registry`), which js-yaml's default schema leaves out.
  return load(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as { services: Record<string, ComposeService> };
}

/** What docs/deploy.md describes: PostgreSQL, Redis, a one-off migration, two instances and HAProxy. */
describe('deploy/compose.yaml', () => {
  const { services } = readCompose();
  const instances = ['registry-1', 'registry-2'];

  it('holds the services docs/deploy.md names', () => {
    assert.deepEqual(Object.keys(services).sort(), ['lb', 'migrate', 'postgres', 'redis', ...instances].sort());
  });

  it('runs the instances on one PostgreSQL and one Redis, behind one proxy, without migrating at start-up', () => {
    for (const name of instances) {
      const env = services[name].environment ?? {};
      assert.match(env.DATABASE_URL, /@postgres:5432\//, name);
      assert.equal(env.REDIS_URL, 'redis://redis:6379', name);
      assert.equal(env.TRUST_PROXY, '1', name);
      assert.equal(env.MIGRATE_ON_START, 'false', name);
      assert.deepEqual(services[name].depends_on, {
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_started' },
      });
    }
  });

  it('builds the image from the repository and migrates once, after PostgreSQL is healthy', () => {
    assert.ok(existsSync(resolve(DEPLOY, services.migrate.build ?? '', 'Dockerfile')), 'the build context holds the Dockerfile');
    assert.deepEqual(services.migrate.command, ['node', 'dist/cli/migrate.js']);
    assert.ok(existsSync(join(ROOT, 'src', 'cli', 'migrate.ts')), 'the migration command exists');
    assert.deepEqual(services.migrate.depends_on, { postgres: { condition: 'service_healthy' } });
  });

  it('lets each instance serve out its SHUTDOWN_DELAY_MS and drain within SHUTDOWN_GRACE_MS before Docker kills it', () => {
    for (const name of instances) {
      const { SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS } = services[name].environment ?? {};
      const shutdown = loadAppConfig({ JWT_SECRET: 'a-secret-only-to-read-the-shutdown-settings', SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS });
      const [, seconds] = /^(\d+)s$/.exec(services[name].stop_grace_period ?? '10s') ?? [];
      assert.ok(Number(seconds) * 1000 > shutdown.shutdownDelayMs + shutdown.shutdownGraceMs, `${name}: stop_grace_period ${services[name].stop_grace_period}`);
    }
  });

  it('mounts deploy/haproxy.cfg into the proxy', () => {
    const mount = services.lb.volumes?.find((volume) => volume.endsWith(':/usr/local/etc/haproxy/haproxy.cfg:ro'));
    assert.ok(mount, 'haproxy.cfg is mounted');
    assert.ok(existsSync(resolve(DEPLOY, mount.split(':')[0])), `${mount} names a file of deploy/`);
  });
});

describe('deploy/haproxy.cfg', () => {
  const config = join(DEPLOY, 'haproxy.cfg');

  it("passes HAProxy's own check (haproxy -c, Debian's package)", () => {
    const check = spawnSync('haproxy', ['-c', '-f', config], { encoding: 'utf8' });
    assert.ok(!check.error, 'haproxy is not installed: apt-get install -y haproxy');
    assert.equal(check.status, 0, check.stderr);
  });

  it('routes to every instance of the compose file, by readiness', () => {
    const text = readFileSync(config, 'utf8');
    assert.match(text, /option httpchk GET \/health\/ready/);
    const servers = [...text.matchAll(/^\s*server (\S+) (\S+):3000/gm)].map(([, name, host]) => [name, host]);
    assert.deepEqual(servers, [
      ['registry-1', 'registry-1'],
      ['registry-2', 'registry-2'],
    ]);
  });
});
