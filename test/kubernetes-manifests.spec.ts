import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import ts from 'typescript';
import { ConfigurationError, loadAppConfig } from '../src/config';
import { auditSigningKeyFile } from './support/key-files';
import { containerEnvironment, type ManifestObject, onlyContainer, readDeployment, readManifestObjects } from './support/kubernetes-manifests';

const ROOT = resolve(__dirname, '..', '..');

/** Values of the right form for the Secret's keys, as an operator creates them. */
const SECRET_VALUES = {
  DATABASE_URL: 'postgres://fleet:secret@postgres:5432/registry',
  JWT_SECRET: 'a-token-secret-of-at-least-32-characters',
  METRICS_TOKEN: 'a-metrics-token-of-24-chars',
};

/** Each kind the manifests use: the module of kubernetes-models that holds its schema and its interface. */
const KINDS: Record<string, { module: string; type: string }> = {
  'apps/v1 Deployment': { module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'batch/v1 Job': { module: 'kubernetes-models/batch/v1/Job', type: 'IJob' },
  'policy/v1 PodDisruptionBudget': { module: 'kubernetes-models/policy/v1/PodDisruptionBudget', type: 'IPodDisruptionBudget' },
  'v1 Secret': { module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  'v1 Service': { module: 'kubernetes-models/v1/Service', type: 'IService' },
};

type Validate = (object: object) => void;

/** A model class's JSON Schema check (ajv, from the Kubernetes API's OpenAPI document): throws, naming each field that breaks it. */
function schemaOf<Data extends object>(Model: new (data: Data) => { validate(): void }): Validate {
  return (object) => new Model(object as Data).validate();
}

async function loadSchemas(): Promise<Map<string, Validate>> {
  const [{ Deployment }, { Job }, { PodDisruptionBudget }, { Secret }, { Service }] = await Promise.all([
    import('kubernetes-models/apps/v1/Deployment'),
    import('kubernetes-models/batch/v1/Job'),
    import('kubernetes-models/policy/v1/PodDisruptionBudget'),
    import('kubernetes-models/v1/Secret'),
    import('kubernetes-models/v1/Service'),
  ]);
  return new Map(
    [Deployment, Job, PodDisruptionBudget, Secret, Service].map((Model) => [`${Model.apiVersion} ${Model.kind}`, schemaOf<object>(Model)] as const),
  );
}

/**
 * The fields the Kubernetes API does not know, which its JSON Schemas let pass: each object is type-checked
 * as a literal of kubernetes-models' interface for its kind, whose excess property check names them, as
 * kubectl's strict field validation would at apply time.
 */
function unknownFields(objects: ManifestObject[]): string[] {
  const sources = new Map(
    objects.map(({ file, object }, index) => {
      const { module, type } = KINDS[`${object.apiVersion} ${object.kind}`];
      const source = `import type { ${type} } from '${module}' with { 'resolution-mode': 'import' };\nexport const object: ${type} = ${JSON.stringify(object, null, 1)};\n`;
      return [join(ROOT, 'test', `${file}.${index}.manifest.ts`), source] as const;
    }),
  );
  const options: ts.CompilerOptions = { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2023, types: [] };
  const host = ts.createCompilerHost(options);
  const program = ts.createProgram([...sources.keys()], options, {
    ...host,
    fileExists: (name) => sources.has(name) || host.fileExists(name),
    readFile: (name) => sources.get(name) ?? host.readFile(name),
    getSourceFile: (name, version) => {
      const source = sources.get(name);
      return source === undefined ? host.getSourceFile(name, version) : ts.createSourceFile(name, source, version);
    },
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
}

/** The variables docs/configuration.md documents, which are those the service reads. */
function documentedVariables(): Set<string> {
  const rows = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8').match(/^\| `[^|]+/gm) ?? [];
  return new Set(rows.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name]) => name)));
}

describe('deploy/kubernetes', () => {
  const objects = readManifestObjects();
  const { deployment, service, secret, migration, disruptionBudget } = readDeployment();
  const server = onlyContainer(deployment);
  const pod = deployment.spec?.template.spec ?? { containers: [] };
  let schemas: Map<string, Validate>;

  before(async () => {
    schemas = await loadSchemas();
  });

  it("is objects of the Kubernetes API, each valid against its kind's schema (kubernetes-models)", () => {
    for (const { file, object } of objects) {
      const validate = schemas.get(`${object.apiVersion} ${object.kind}`);
      assert.ok(validate, `${file}: ${object.apiVersion} ${object.kind} is not a kind this test knows`);
      assert.doesNotThrow(() => validate(object), `${file}: ${object.kind} ${object.metadata?.name}`);
    }
  });

  it('uses no field the Kubernetes API does not know', () => {
    assert.deepEqual(unknownFields(objects), []);
  });

  it('sets only variables the service reads, as docs/configuration.md lists them', () => {
    const known = documentedVariables();
    for (const workload of [deployment, migration]) {
      for (const { name } of onlyContainer(workload).env ?? []) {
        assert.ok(known.has(name), `${workload.metadata?.name}: ${name} is not a variable of docs/configuration.md`);
      }
    }
  });

  it('starts an instance in production on PostgreSQL and Redis, without migrating, on the port the probes and the Service ask', () => {
    const env = containerEnvironment(server, secret, SECRET_VALUES);
    const config = loadAppConfig({ ...env, AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() }, ROOT);
    assert.equal(config.database.dialect, 'postgres');
    assert.equal(config.migrateOnStart, false);
    assert.ok(config.rateLimit.redisUrl, 'REDIS_URL is set');
    assert.equal(config.docsEnabled, false, 'NODE_ENV=production');
    const http = server.ports?.find(({ name }) => name === 'http');
    assert.equal(http?.containerPort, config.port, 'the container port named http is the one the service listens on');
    for (const probe of [server.startupProbe, server.livenessProbe, server.readinessProbe]) {
      assert.equal(probe?.httpGet?.port, 'http');
    }
    assert.equal(service.spec?.ports?.[0].targetPort, 'http');
  });

  it('lets an instance serve out SHUTDOWN_DELAY_MS and drain within SHUTDOWN_GRACE_MS before the kubelet kills it', () => {
    const config = loadAppConfig({ ...containerEnvironment(server, secret, SECRET_VALUES), AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() }, ROOT);
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    assert.ok(grace * 1000 > config.shutdownDelayMs + config.shutdownGraceMs, `terminationGracePeriodSeconds ${grace}`);
  });

  it("mounts the audit signing key where AUDIT_SIGNING_KEY_FILE says, readable by the pod's group alone", () => {
    const file = server.env?.find(({ name }) => name === 'AUDIT_SIGNING_KEY_FILE')?.value ?? '';
    const mount = server.volumeMounts?.find(({ mountPath }) => file.startsWith(`${mountPath}/`));
    assert.ok(mount, `a volume is mounted above ${file}`);
    const volume = pod.volumes?.find(({ name }) => name === mount.name)?.secret;
    assert.equal(volume?.secretName, secret.metadata?.name);
    const item = volume?.items?.find(({ path }) => `${mount.mountPath}/${path}` === file);
    assert.ok(item && item.key in (secret.stringData ?? {}), `the Secret's key is mounted at ${file}`);
    // The kubelet writes the file as root and, with fsGroup, adds the group's read: 0440, root's, of group fsGroup.
    assert.equal((volume?.defaultMode ?? 0o644) & 0o137, 0, 'no one but the owner and the group may read it');
    assert.equal(pod.securityContext?.fsGroup, pod.securityContext?.runAsUser, "the file's group is the service's user's");
  });

  it('holds placeholders in its Secret that the service refuses, naming each variable', () => {
    const placeholders = secret.stringData ?? {};
    for (const [name, value] of Object.entries(SECRET_VALUES)) {
      const env = { ...containerEnvironment(server, secret, { ...SECRET_VALUES, [name]: placeholders[name] }), AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() };
      assert.notEqual(value, placeholders[name]);
      assert.throws(() => loadAppConfig(env, ROOT), (error) => error instanceof ConfigurationError && error.message.includes(name), name);
    }
    const key = auditSigningKeyFile();
    writeFileSync(key, placeholders['audit-signing-key.pem']);
    const env = { ...containerEnvironment(server, secret, SECRET_VALUES), AUDIT_SIGNING_KEY_FILE: key };
    assert.throws(() => loadAppConfig(env, ROOT), /AUDIT_SIGNING_KEY_FILE/);
  });

  it('routes the Service and the disruption budget to the instances, and not to the migration', () => {
    const instance = deployment.spec?.template.metadata?.labels ?? {};
    const migrating = migration.spec?.template.metadata?.labels ?? {};
    const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
      Object.entries(selector ?? {}).every(([label, value]) => labels[label] === value);
    for (const [name, selector] of [
      ['Deployment', deployment.spec?.selector.matchLabels],
      ['Service', service.spec?.selector],
      ['PodDisruptionBudget', disruptionBudget.spec?.selector?.matchLabels],
    ] as const) {
      assert.ok(selects(selector, instance), `the ${name} selects the instances`);
      assert.ok(!selects(selector, migrating), `the ${name} leaves the migration's pod alone`);
    }
    assert.ok(Number(disruptionBudget.spec?.minAvailable) < (deployment.spec?.replicas ?? 1), 'a drain may evict one instance');
  });

  it('migrates with the compiled command of the same image, on the same database', () => {
    const migrate = onlyContainer(migration);
    assert.equal(migrate.image, server.image);
    const [program, script] = migrate.command ?? [];
    assert.equal(program, 'node');
    assert.ok(existsSync(join(ROOT, 'src', (script ?? '').replace(/^dist\/(.*)\.js$/, '$1.ts'))), `${script} is built from src/`);
    assert.deepEqual(
      migrate.env?.find(({ name }) => name === 'DATABASE_URL'),
      server.env?.find(({ name }) => name === 'DATABASE_URL'),
    );
  });
});
