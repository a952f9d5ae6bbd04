import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadAll } from 'js-yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment' with { 'resolution-mode': 'import' };
import type { IJob } from 'kubernetes-models/batch/v1/Job' with { 'resolution-mode': 'import' };
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget' with { 'resolution-mode': 'import' };
import type { IIoK8sApiCoreV1Container } from 'kubernetes-models/v1/Container' with { 'resolution-mode': 'import' };
import type { ISecret } from 'kubernetes-models/v1/Secret' with { 'resolution-mode': 'import' };
import type { IService } from 'kubernetes-models/v1/Service' with { 'resolution-mode': 'import' };

export const KUBERNETES_DIR = resolve(__dirname, '..', '..', '..', 'deploy', 'kubernetes');

/** One object of a manifest file, as kubectl would send it. */
export interface ManifestObject {
  file: string;
  object: { apiVersion: string; kind: string; metadata?: { name?: string } };
}

/** Every object of every file of deploy/kubernetes, file by file in the order of their names. */
export function readManifestObjects(): ManifestObject[] {
  const files = readdirSync(KUBERNETES_DIR).filter((name) => /\.(ya?ml|json)$/.test(name)).sort();
  return files.flatMap((file) =>
    loadAll(readFileSync(join(KUBERNETES_DIR, file), 'utf8'))
      .filter((object) => object !== null)
      .map((object) => ({ file, object: object as ManifestObject['object'] })),
  );
}

/** The objects docs/deploy.md describes, one of each kind. */
export interface Deployment {
  deployment: IDeployment;
  service: IService;
  secret: ISecret;
  migration: IJob;
  disruptionBudget: IPodDisruptionBudget;
}

function theOne<T>(objects: ManifestObject[], kind: string): T {
  const found = objects.filter(({ object }) => object.kind === kind);
  assert.equal(found.length, 1, `deploy/kubernetes holds one ${kind}: ${found.map(({ file }) => file).join(', ') || 'none'}`);
  return found[0].object as T;
}

export function readDeployment(): Deployment {
  const objects = readManifestObjects();
  return {
    deployment: theOne(objects, 'Deployment'),
    service: theOne(objects, 'Service'),
    secret: theOne(objects, 'Secret'),
    migration: theOne(objects, 'Job'),
    disruptionBudget: theOne(objects, 'PodDisruptionBudget'),
  };
}

/** The one container of a pod template. */
export function onlyContainer(workload: IDeployment | IJob): IIoK8sApiCoreV1Container {
  const containers = workload.spec?.template.spec?.containers ?? [];
  assert.equal(containers.length, 1, `${workload.metadata?.name} runs one container`);
  return containers[0];
}

/**
 * The environment a container starts with: its literal values, and its secret references looked up in
 * `secretValues` by key; every reference must name the Secret of deploy/kubernetes and a key of it.
 */
export function containerEnvironment(container: IIoK8sApiCoreV1Container, secret: ISecret, secretValues: Record<string, string>): Record<string, string> {
  const keys = Object.keys(secret.stringData ?? {});
  return Object.fromEntries(
    (container.env ?? []).map(({ name, value, valueFrom }) => {
      if (valueFrom === undefined) {
        return [name, value ?? ''];
      }
      const reference = valueFrom.secretKeyRef;
      assert.ok(reference, `${name}: only literal values and secret references are used`);
      assert.equal(reference.name, secret.metadata?.name, `${name} reads the Secret of deploy/kubernetes`);
      assert.ok(keys.includes(reference.key), `${name} reads ${reference.key}, which the Secret does not hold`);
      assert.ok(reference.key in secretValues, `no test value for the Secret's ${reference.key}`);
      return [name, secretValues[reference.key]];
    }),
  );
}
