import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { containerEnvironment, onlyContainer, readDeployment } from './support/kubernetes-manifests';
import { type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { assertRedisAnswers, REDIS_URL } from './support/redis';
import { waitUntil } from './support/wait';

const { deployment, secret, migration } = readDeployment();
const server = onlyContainer(deployment);
const pod = deployment.spec?.template.spec ?? { containers: [] };
const user = { uid: pod.securityContext?.runAsUser ?? 0, gid: pod.securityContext?.runAsGroup ?? 0 };

/**
 * The Secret's key file as the kubelet mounts it: written by root with the volume's defaultMode, then,
 * since the pod has an fsGroup, given to that group with the group's read added (0440 for 0400).
 */
function mountedKeyFile(dir: string): string {
  const file = join(dir, 'audit-signing-key.pem');
  copyFileSync(resolve('test/fixtures/audit-signing-key.pem'), file);
  const fsGroup = pod.securityContext?.fsGroup ?? 0;
  chownSync(file, 0, fsGroup);
  const defaultMode = pod.volumes?.find(({ secret: source }) => source?.secretName === secret.metadata?.name)?.secret?.defaultMode ?? 0o644;
  chmodSync(file, defaultMode | 0o440);
  return file;
}

/** The pod's environment, with the Secret's values the operator created, and this machine's Redis for the cluster's. */
function podEnvironment(container: typeof server, database: TestDatabase, keyFile: string): Record<string, string> {
  const env = containerEnvironment(container, secret, {
    DATABASE_URL: database.url,
    JWT_SECRET: 'a-token-secret-of-at-least-32-characters',
    METRICS_TOKEN: 'a-metrics-token-of-24-chars',
  });
  // The test picks a free port: the manifest's PORT is checked against containerPort in kubernetes-manifests.spec.ts.
  delete env.PORT;
  if (env.REDIS_URL !== undefined) {
    env.REDIS_URL = REDIS_URL;
  }
  if (env.AUDIT_SIGNING_KEY_FILE !== undefined) {
    env.AUDIT_SIGNING_KEY_FILE = keyFile;
  }
  return env;
}

/** The first directory on the way to `path` that a user other than its owner cannot enter, if any. */
function closedDirectoryOnTheWay(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      return dir;
    }
    if (dir === dirname(dir)) {
      return undefined;
    }
  }
}

const closed = closedDirectoryOnTheWay(realpathSync(process.execPath)) ?? closedDirectoryOnTheWay(resolve(SCRIPTS.server));
const skip =
  (!process.env.TEST_DATABASE_URL && 'the manifests run on PostgreSQL: set TEST_DATABASE_URL') ||
  (process.getuid?.() !== 0 && "running the server as the pod's user needs root") ||
  (closed !== undefined && `the pod's user cannot enter ${closed}, on the way to Node or the build: run from a checkout others can read`);

/** The manifests are for PostgreSQL only: two instances cannot share a SQLite file across pods. */
describe('deploy/kubernetes run as the cluster would run it [postgres]', { skip }, () => {
  let dir: string;
  let database: TestDatabase;
  let instance: RunningServer | undefined;

  before(async () => {
    await assertRedisAnswers();
    dir = mkdtempSync(join(tmpdir(), 'fleet-kubernetes-'));
    chmodSync(dir, 0o755);
    database = await createTestDatabase('postgres', dir);
  });

  after(async () => {
    await instance?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("migrates with the Job, serves its probes as the pod's user on a read-only filesystem, and drains on SIGTERM within terminationGracePeriodSeconds", async () => {
    const keyFile = mountedKeyFile(dir);
    const [, script] = onlyContainer(migration).command ?? [];
    const migrate = await runScript(join(dirname(SCRIPTS.server), script.replace(/^dist\//, '')), [], { cwd: dir, env: podEnvironment(onlyContainer(migration), database, keyFile) });
    assert.equal(migrate.code, 0, migrate.stderr);

    // readOnlyRootFilesystem: a working directory the pod's user cannot write to.
    const readOnly = mkdtempSync(join(dir, 'app-'));
    chmodSync(readOnly, 0o555);
    const env = podEnvironment(server, database, keyFile);
    instance = await startServer({ cwd: readOnly, env, user });
    for (const probe of [server.startupProbe, server.livenessProbe, server.readinessProbe]) {
      const path = probe?.httpGet?.path ?? '';
      assert.equal((await fetch(`${instance.url}${path}`)).status, 200, `${path}: ${instance.output()}`);
    }

    const stopping = Date.now();
    const exited = once(instance.child, 'exit');
    instance.child.kill('SIGTERM');
    const { output } = instance;
    await waitUntil(() => output().includes('SIGTERM received'), output);
    const readiness = await fetch(`${instance.url}${server.readinessProbe?.httpGet?.path}`);
    assert.equal(readiness.status, 503, 'unready once signalled, as the endpoints drop the pod');
    const served = await fetch(`${instance.url}${server.livenessProbe?.httpGet?.path}`);
    assert.equal(served.status, 200, 'still serving during SHUTDOWN_DELAY_MS, while the endpoints catch up');
    assert.equal(served.headers.get('connection'), 'close');
    const [code] = (await exited) as [number | null];
    const took = Date.now() - stopping;
    assert.equal(code, 0, instance.output());
    assert.ok(took >= Number(env.SHUTDOWN_DELAY_MS), `exited after ${took} ms, before SHUTDOWN_DELAY_MS`);
    assert.ok(took < (pod.terminationGracePeriodSeconds ?? 30) * 1000, `exited after ${took} ms, past terminationGracePeriodSeconds`);
  });
});
