import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationFailedError } from '../../common';
import { WebhookUrlForbiddenError } from './webhooks.errors';

/** Cloud instance metadata services: each answers credentials to whoever on the host asks. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16']);

/** ipaddr.js's names of the ranges a webhook may not reach, as a message names them. */
const RANGE_KINDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  unspecified: 'unspecified',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

/** The IPv6 prefixes that carry an IPv4 address in their low bits: NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (address.range() === '6to4') {
    return new ipaddr.IPv4(bytes.slice(2, 6));
  }
  return undefined;
}

/**
 * Why a webhook may not reach this IP address ('loopback', 'private', 'metadata', ...), or undefined
 * for a public unicast address. Deny by default: any special-purpose range is forbidden, and what is
 * not an IP address at all is too. IPv4 inside IPv6 (mapped, NAT64, 6to4) is judged as the IPv4 it is.
 */
export function forbiddenAddressKind(address: string): string | undefined {
  const literal = address.replace(/^\[|\]$/g, '');
  if (isIP(literal.split('%')[0]) === 0) {
    return 'not an IP address';
  }
  let parsed = ipaddr.process(literal);
  if (parsed.kind() === 'ipv6') {
    parsed = embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed;
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) {
    return 'metadata';
  }
  const range = parsed.range();
  if (range === 'unicast') {
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) has no range of its own in ipaddr.js.
    return parsed.kind() === 'ipv6' && parsed.match(ipaddr.IPv6.parse('::'), 96) ? 'reserved' : undefined;
  }
  return RANGE_KINDS[range] ?? 'reserved';
}

export interface UrlRules {
  /** http:// is accepted besides https://. */
  allowHttp: boolean;
  /** Hosts in loopback, private, link-local, unique-local and metadata ranges are accepted. */
  allowPrivateNetworks: boolean;
}

/** Resolves a host name to every address it has, as dns.promises.lookup({ all: true }) does. */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return dnsLookupAll(hostname, { all: true });
}

/** The host as an address or a name: URL keeps IPv6 literals in brackets. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** 'a loopback address', 'an unspecified address'. */
function describeKind(kind: string): string {
  return `${/^([aeio]|unspecified)/.test(kind) ? 'an' : 'a'} ${kind} address`;
}

function forbidden(kind: string, where: string): WebhookUrlForbiddenError {
  return new WebhookUrlForbiddenError(`url ${where}, ${describeKind(kind)}; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it`);
}

/**
 * The url a subscription may be created with: absolute, http(s), no credentials, and a host that is, or
 * resolves only to, addresses the rules allow. The url itself is never echoed: its path or query may
 * hold a receiver's token. The sender checks every connection again (guardedLookup, assertAllowedHost).
 */
export async function checkWebhookUrl(url: string, rules: UrlRules, lookup: HostLookup = resolveAll): Promise<URL> {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    throw new ValidationFailedError('url must be an absolute http:// or https:// URL');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ValidationFailedError('url must not carry credentials (user:password@): put them in the path or query if the receiver needs them');
  }
  if (parsed.protocol === 'http:' && !rules.allowHttp) {
    throw new WebhookUrlForbiddenError('url must be https://; WEBHOOK_ALLOW_HTTP=true allows http://');
  }
  const host = bareHost(parsed.hostname);
  if (isIP(host) !== 0) {
    const kind = rules.allowPrivateNetworks ? undefined : forbiddenAddressKind(host);
    if (kind !== undefined) {
      throw forbidden(kind, `names ${host}`);
    }
    return parsed;
  }
  const addresses = await lookup(host).catch(() => []);
  if (addresses.length === 0) {
    throw new ValidationFailedError(`url's host ${host} does not resolve`);
  }
  for (const { address } of rules.allowPrivateNetworks ? [] : addresses) {
    const kind = forbiddenAddressKind(address);
    if (kind !== undefined) {
      throw forbidden(kind, `resolves to ${address}`);
    }
  }
  return parsed;
}

/** A connection refused because its address is forbidden: the delivery attempt fails with this error. */
export class ForbiddenAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_FORBIDDEN';

  constructor(host: string, address: string, kind: string) {
    super(`${host === address ? address : `${host} resolves to ${address}`}, ${describeKind(kind)}, which WEBHOOK_ALLOW_PRIVATE_NETWORKS forbids`);
  }
}

/**
 * For an IP literal host, which Node connects to without calling `lookup`: throws ForbiddenAddressError
 * when the address is forbidden. A name is left to guardedLookup.
 */
export function assertAllowedHost(hostname: string, allowPrivateNetworks: boolean): void {
  const host = bareHost(hostname);
  if (allowPrivateNetworks || isIP(host) === 0) {
    return;
  }
  const kind = forbiddenAddressKind(host);
  if (kind !== undefined) {
    throw new ForbiddenAddressError(host, host, kind);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves as dns.lookup does and fails the connection when any address
 * the name has is forbidden: the rules are applied on every connection, so a name that resolved to a
 * public address at creation and to 127.0.0.1 now is caught (DNS rebinding).
 */
export function guardedLookup(allowPrivateNetworks: boolean): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      for (const { address } of allowPrivateNetworks ? [] : addresses) {
        const kind = forbiddenAddressKind(address);
        if (kind !== undefined) {
          callback(new ForbiddenAddressError(hostname, address, kind), []);
          return;
        }
      }
      if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };
}
