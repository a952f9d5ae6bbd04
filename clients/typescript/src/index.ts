import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

/** Every operation of the service, typed from its OpenAPI document: paths, parameters, bodies and answers. */
export type FleetRegistryClient = Client<paths>;

/** A client of the service at `baseUrl` that sends `token` (a command-authority JWT) as its bearer token. */
export function createFleetRegistryClient(baseUrl: string, token: string): FleetRegistryClient {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}
