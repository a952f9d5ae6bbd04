import { isIP } from 'node:net';
import { IsEmpty, IsIn, IsIP, IsOptional, Matches, ValidateBy } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { isProduction, type RuntimeVariables } from './environment';

/** How the HTTP server listens, stops, and meets browsers and proxies. */
export interface ServerConfig {
  port: number;
  /** The address the server listens on; 0.0.0.0 is every IPv4 interface. */
  host: string;
  /** How long a SIGTERM or SIGINT may take to answer the requests in flight and close the database, once the server stops accepting. */
  shutdownGraceMs: number;
  /** How long after a SIGTERM the server still accepts and answers, while its load balancer notices that readiness fails. */
  shutdownDelayMs: number;
  /**
   * Proxies (load balancers) in front of the service whose X-Forwarded-For is believed: how many hops,
   * or the addresses and CIDR ranges they connect from; 0: none.
   */
  trustProxy: number | string[];
  /** Swagger UI at /docs and the OpenAPI document at /docs-json. */
  docsEnabled: boolean;
  /** Swagger UI's source maps (/docs/*.map): megabytes an answer that only a developer's browser reads. */
  docsSourceMaps: boolean;
  /** Origins a browser may call the API from; empty: no CORS headers at all. */
  corsOrigins: string[];
}

const HOPS = /^(10|[0-9])$/;

function isAddressOrRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.trim().split('/');
  const version = isIP(address);
  const maxBits = version === 4 ? 32 : 128;
  return version !== 0 && rest.length === 0 && (bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits));
}

function trustedProxies(value = '0'): number | string[] {
  return HOPS.test(value) ? Number(value) : value.split(',').map((entry) => entry.trim());
}

export class ServerVariables {
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 65535)
  PORT?: number;

  @IsOptional()
  @IsIP(undefined, { message: 'HOST must be an IP address such as 0.0.0.0, 127.0.0.1 or ::' })
  HOST?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  SHUTDOWN_GRACE_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(0, 600_000)
  SHUTDOWN_DELAY_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  DOCS_ENABLED?: string;

  // Refused rather than ignored: an operator who set it to false would otherwise publish the docs unawares.
  @IsOptional()
  @IsEmpty({ message: 'SWAGGER_ENABLED is not read: DOCS_ENABLED switches /docs on or off' })
  SWAGGER_ENABLED?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^,\s/]+(,\s*https?:\/\/[^,\s/]+)*$/, {
    message: 'CORS_ORIGINS must be a comma-separated list of origins such as https://ops.example.org,http://localhost:8080',
  })
  CORS_ORIGINS?: string;

  @IsOptional()
  @ValidateBy({
    name: 'isTrustedProxies',
    validator: {
      validate: (value) => typeof value === 'string' && (HOPS.test(value) || value.split(',').every(isAddressOrRange)),
      defaultMessage: () => 'TRUST_PROXY must be a number of proxies from 0 to 10, or a comma-separated list of IP addresses and CIDR ranges such as 10.0.0.0/8,fd00::/8',
    },
  })
  TRUST_PROXY?: string;
}

export function serverConfig(vars: ServerVariables, runtime: RuntimeVariables): ServerConfig {
  const production = isProduction(runtime);
  return {
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? '0.0.0.0',
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 10_000,
    // Two failed checks of a load balancer polling every 2 s (deploy/haproxy.cfg), and some margin.
    shutdownDelayMs: vars.SHUTDOWN_DELAY_MS ?? 5_000,
    trustProxy: trustedProxies(vars.TRUST_PROXY),
    // Production publishes the API's description only when asked to.
    docsEnabled: vars.DOCS_ENABLED === undefined ? !production : vars.DOCS_ENABLED === 'true',
    docsSourceMaps: !production,
    corsOrigins: vars.CORS_ORIGINS?.split(',').map((origin) => origin.trim()) ?? [],
  };
}
