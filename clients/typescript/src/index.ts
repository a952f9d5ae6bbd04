import { createClient } from './generated/client';
import { FleetRegistrySdk } from './generated';

export type * from './generated/types.gen';

/** Every operation of the service, typed from its OpenAPI document, grouped as `assets`, `audit`, `fleet`, ... */
export type FleetRegistryClient = FleetRegistrySdk;

/** A client of the service at `baseUrl` that sends `token` (a command-authority JWT) as its bearer token. */
export function createFleetRegistryClient(baseUrl: string, token: string): FleetRegistryClient {
  return new FleetRegistrySdk({ client: createClient({ baseUrl, auth: token }) });
}

export { type CheckpointKeys, CheckpointVerificationError, type VerifiedCheckpoint, verifyCheckpoint } from './checkpoint';
