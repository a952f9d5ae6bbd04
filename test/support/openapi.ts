import assert from 'node:assert/strict';
import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject } from '@nestjs/swagger';

/** The HTTP methods an OpenAPI path item may hold operations under, as far as this service uses them. */
export const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface Route {
  method: (typeof OPERATION_METHODS)[number];
  path: string;
  operation: OperationObject;
}

/** Every operation of the document, in its order. */
export function routesOf(document: OpenAPIObject): Route[] {
  return Object.entries(document.paths).flatMap(([path, item]: [string, PathItemObject]) =>
    OPERATION_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ method, path, operation }] : [];
    }),
  );
}

/** The path with each path parameter and each required query parameter set to its documented example, so only the token decides the answer. */
export function concretePath({ path, operation }: Route): string {
  const parameters = (operation.parameters as ParameterObject[] | undefined) ?? [];
  const exampleOf = (parameter: ParameterObject | undefined, name: string) => {
    const example: unknown = (parameter?.schema as { example?: unknown } | undefined)?.example ?? parameter?.example;
    assert.ok(example !== undefined, `${path}: parameter ${name} documents an example`);
    return encodeURIComponent(typeof example === 'string' ? example : JSON.stringify(example));
  };
  const concrete = path.replace(/\{(\w+)\}/g, (_match, name: string) => exampleOf(parameters.find((p) => p.name === name), name));
  const query = parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${exampleOf(p, p.name)}`);
  return query.length === 0 ? concrete : `${concrete}?${query.join('&')}`;
}

export const isPublic = (operation: OperationObject) => Array.isArray(operation.security) && operation.security.length === 0;
