import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { assertAllowedHost, checkWebhookUrl, forbiddenAddressKind, guardedLookup } from './target-guard';

const STRICT = { allowHttp: false, allowPrivateNetworks: false };
const resolvingTo =
  (...addresses: string[]) =>
  (): Promise<LookupAddress[]> =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

/** The error a promise rejects with, as the spec's body would carry it. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(() => assert.fail('expected a refusal'), (caught: unknown) => caught)) as { errorCode: string; message: string };
  return { code: error.errorCode, message: error.message };
}

describe('forbiddenAddressKind', () => {
  for (const [address, kind] of [
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['[::1]', 'loopback'],
    ['localhost', 'not an IP address'],
  ]) {
    it(`${address} is ${kind}`, () => assert.equal(forbiddenAddressKind(address), kind));
  }

  for (const address of ['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
    it(`${address} is public`, () => assert.equal(forbiddenAddressKind(address), undefined));
  }
});

describe('checkWebhookUrl', () => {
  it('accepts an https url whose host resolves only to public addresses, and returns it parsed', async () => {
    const url = await checkWebhookUrl('https://hooks.example.com/in?token=x', STRICT, resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'));
    assert.equal(url.hostname, 'hooks.example.com');
  });

  it('refuses what is not an absolute http(s) url, or carries credentials, as a VALIDATION_ERROR naming url', async () => {
    for (const url of ['/relative', 'not a url', 'ftp://example.com/', 'javascript:alert(1)', 'https://user:pass@example.com/', 'https://user@example.com/']) {
      const { code, message } = await refusal(checkWebhookUrl(url, STRICT, resolvingTo('8.8.8.8')));
      assert.equal(code, 'VALIDATION_ERROR', url);
      assert.match(message, /^url /, url);
    }
  });

  it('refuses http unless allowed', async () => {
    assert.deepEqual(await refusal(checkWebhookUrl('http://example.com/', STRICT, resolvingTo('8.8.8.8'))), {
      code: 'WEBHOOK_URL_FORBIDDEN',
      message: 'url must be https://; WEBHOOK_ALLOW_HTTP=true allows http://',
    });
    await checkWebhookUrl('http://example.com/', { ...STRICT, allowHttp: true }, resolvingTo('8.8.8.8'));
  });

  it('refuses a name that resolves to a forbidden address, even among public ones, naming the address and its kind', async () => {
    assert.deepEqual(await refusal(checkWebhookUrl('https://localhost/', STRICT, resolvingTo('8.8.8.8', '127.0.0.1'))), {
      code: 'WEBHOOK_URL_FORBIDDEN',
      message: 'url resolves to 127.0.0.1, a loopback address; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it',
    });
  });

  it('refuses forbidden literals, IPv6 in brackets and IPv4-mapped ones included, without resolving them', async () => {
    const noLookup = () => assert.fail('a literal is not resolved');
    for (const [url, kind] of [
      ['https://127.0.0.1/', 'a loopback'],
      ['https://[::1]:8443/', 'a loopback'],
      ['https://10.0.0.5/', 'a private'],
      ['https://169.254.169.254/latest/meta-data/', 'a metadata'],
      ['https://[fd00::1]/', 'a unique-local'],
      ['https://0.0.0.0/', 'an unspecified'],
      ['https://[::ffff:127.0.0.1]/', 'a loopback'],
      ['https://0x7f.1/', 'a loopback'],
      ['https://2130706433/', 'a loopback'],
    ]) {
      const { code, message } = await refusal(checkWebhookUrl(url, STRICT, noLookup));
      assert.equal(code, 'WEBHOOK_URL_FORBIDDEN', url);
      assert.match(message, new RegExp(`^url names .+, ${kind} address; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it$`), url);
    }
  });

  it('accepts private addresses when WEBHOOK_ALLOW_PRIVATE_NETWORKS is true', async () => {
    const open = { allowHttp: true, allowPrivateNetworks: true };
    await checkWebhookUrl('http://127.0.0.1:8080/hook', open);
    await checkWebhookUrl('http://localhost/hook', open, resolvingTo('127.0.0.1'));
  });

  it('refuses a host that does not resolve, naming url, and never echoes the url itself', async () => {
    const { code, message } = await refusal(checkWebhookUrl('https://nowhere.invalid/secret-token', STRICT, () => Promise.reject(new Error('ENOTFOUND'))));
    assert.equal(code, 'VALIDATION_ERROR');
    assert.equal(message, "url's host nowhere.invalid does not resolve");
  });
});

describe('the checks on every connection', () => {
  it('assertAllowedHost refuses a forbidden literal with WEBHOOK_ADDRESS_FORBIDDEN and leaves names and allowed cases alone', () => {
    assert.throws(() => assertAllowedHost('[::1]', false), { code: 'WEBHOOK_ADDRESS_FORBIDDEN', message: '::1, a loopback address, which WEBHOOK_ALLOW_PRIVATE_NETWORKS forbids' });
    assertAllowedHost('8.8.8.8', false);
    assertAllowedHost('localhost', false);
    assertAllowedHost('127.0.0.1', true);
  });

  it('guardedLookup fails a connection to a name resolving to a forbidden address, and resolves it when allowed', async () => {
    const refused = await new Promise<NodeJS.ErrnoException>((resolve) => {
      request({ host: 'localhost', port: 9, lookup: guardedLookup(false) }).on('error', resolve).end();
    });
    assert.equal(refused.code, 'WEBHOOK_ADDRESS_FORBIDDEN');
    assert.match(refused.message, /^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    const resolved = await new Promise<string>((resolve, reject) =>
      guardedLookup(true)('localhost', {}, (error, address) => (error ? reject(error) : resolve(address as string))),
    );
    assert.match(resolved, /^(127\.0\.0\.1|::1)$/);
    const all = await new Promise<LookupAddress[]>((resolve, reject) =>
      guardedLookup(true)('localhost', { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses as LookupAddress[]))),
    );
    assert.ok(all.length >= 1);
  });
});
