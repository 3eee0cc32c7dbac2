import { describe, expect, it } from 'vitest';
import {
  addressVerdict,
  BlockedAddressError,
  checkTarget,
  guardedLookup,
  type AddressRule,
  type Resolver,
} from '../../../../daemon/events/webhooks/address-policy.ts';

const KEY: AddressRule = { loopback: false, networks: [], ownListeners: [] };
const OPERATOR: AddressRule = { loopback: true, networks: [], ownListeners: [], namesListeners: true };

/** Every form a key must not reach, with what it is. None of them is ever connected to. */
const HOSTILE: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback (the whole /8)'],
  ['::1', 'IPv6 loopback'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'IPv6 unspecified'],
  ['10.1.2.3', 'RFC 1918 10/8'],
  ['172.16.0.1', 'RFC 1918 172.16/12'],
  ['172.31.255.255', 'RFC 1918 172.16/12, last'],
  ['192.168.1.1', 'RFC 1918 192.168/16'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT 100.64/10, last'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['fe80::1', 'IPv6 link-local'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fd00::/8'],
  ['224.0.0.1', 'multicast'],
  ['ff02::1', 'IPv6 multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.10', 'documentation TEST-NET-1'],
  ['198.51.100.10', 'documentation TEST-NET-2'],
  ['203.0.113.10', 'documentation TEST-NET-3'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['2001:2::1', 'IPv6 benchmarking'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local, hex'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::a9fe:a9fe', 'IPv4-compatible link-local'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145)'],
  ['64:ff9b::7f00:1', 'NAT64 (RFC 6052) loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 (RFC 6052) link-local'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 (RFC 8215)'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['100::1', 'discard-only'],
  ['fec0::1', 'deprecated site-local'],
];

const PUBLIC = ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.215.14'];

describe('the webhook address policy', () => {
  it.each(HOSTILE)('refuses %s (%s) to an endpoint registered by a key', (address) => {
    expect(addressVerdict(address, 443, KEY)).toEqual(expect.any(String));
  });

  it('lets a public unicast address through, IPv4, IPv6 and IPv4-mapped', () => {
    for (const address of PUBLIC) expect(addressVerdict(address, 443, KEY)).toBeNull();
  });

  it('lets the operator reach loopback and its allowed networks, and nothing else private', () => {
    expect(addressVerdict('127.0.0.1', 8080, OPERATOR)).toBeNull();
    expect(addressVerdict('::1', 8080, OPERATOR)).toBeNull();
    expect(addressVerdict('10.1.2.3', 443, OPERATOR)).toEqual(expect.any(String));
    const allowed = { ...OPERATOR, networks: ['10.0.0.0/8', 'fd00::/8'] };
    expect(addressVerdict('10.1.2.3', 443, allowed)).toBeNull();
    expect(addressVerdict('::ffff:10.1.2.3', 443, allowed)).toBeNull();
    expect(addressVerdict('fd00::5', 443, allowed)).toBeNull();
    expect(addressVerdict('192.168.1.1', 443, allowed)).toEqual(expect.any(String));
    expect(addressVerdict('169.254.169.254', 80, allowed)).toEqual(expect.any(String));
  });

  it("refuses the daemon's own listeners even to the operator, on their port only", () => {
    const rule = {
      ...OPERATOR,
      networks: ['10.0.0.0/8'],
      ownListeners: [
        { host: '127.0.0.1', port: 8787 },
        { host: '0.0.0.0', port: 9100 },
        { host: 'localhost', port: 8788 },
      ],
    };
    expect(addressVerdict('127.0.0.1', 8787, rule)).toMatch(/own listeners/);
    expect(addressVerdict('::ffff:127.0.0.1', 8787, rule)).toMatch(/own listeners/);
    expect(addressVerdict('127.0.0.1', 8788, rule)).toMatch(/own listeners/);
    expect(addressVerdict('::1', 8788, rule)).toMatch(/own listeners/);
    // A listener on 0.0.0.0 answers on every address of the host.
    expect(addressVerdict('10.0.0.7', 9100, rule)).toMatch(/own listeners/);
    expect(addressVerdict('127.0.0.1', 8080, rule)).toBeNull();
  });

  it("refuses a key the daemon's own listeners in the words of any other address it may not reach", () => {
    const ownListeners = [
      { host: '127.0.0.1', port: 8787 },
      { host: '::1', port: 8790 },
    ];
    // keyNetworksForTests lets a key reach loopback; the listeners stay refused, unnamed.
    for (const rule of [
      { ...KEY, ownListeners },
      { ...KEY, ownListeners, networks: ['127.0.0.0/8'] },
    ]) {
      expect(addressVerdict('127.0.0.1', 8787, rule)).toBe(addressVerdict('127.0.0.1', 8080, KEY));
      expect(addressVerdict('::1', 8790, rule)).toBe(addressVerdict('::1', 8080, KEY));
    }
  });

  it('refuses every WHATWG spelling of loopback at registration, without any lookup', async () => {
    const resolve: Resolver = () => Promise.reject(new Error('no lookup expected'));
    for (const url of [
      'http://2130706433:8787/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::ffff:169.254.169.254]/',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      expect(await checkTarget(new URL(url), KEY, resolve, 1_000), url).toEqual(expect.any(String));
    }
  });

  it('refuses a name when any one of its addresses is private, and one that does not resolve, alike', async () => {
    const resolve: Resolver = async (host) => {
      if (host === 'mixed.test')
        return [
          { address: '93.184.215.14', family: 4 },
          { address: '10.0.0.1', family: 4 },
        ];
      if (host === 'public.test') return [{ address: '93.184.215.14', family: 4 }];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    expect(await checkTarget(new URL('https://mixed.test/'), KEY, resolve, 1_000)).toMatch(
      'mixed.test does not resolve to reachable addresses only',
    );
    expect(await checkTarget(new URL('https://nowhere.test/'), KEY, resolve, 1_000)).toMatch(
      'nowhere.test does not resolve to reachable addresses only',
    );
    expect(await checkTarget(new URL('https://public.test/'), KEY, resolve, 1_000)).toBeNull();
  });

  it('hands the socket only the addresses it checked, and refuses when any is forbidden', async () => {
    const addresses = [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ];
    const lookup = guardedLookup(KEY, 443, async () => addresses);
    const all = await new Promise((resolve, reject) =>
      lookup('public.test', { all: true }, (error, result) => (error ? reject(error) : resolve(result))),
    );
    expect(all).toEqual(addresses);
    const one = await new Promise((resolve, reject) =>
      lookup('public.test', { family: 6 }, (error, address, family) =>
        error ? reject(error) : resolve([address, family]),
      ),
    );
    expect(one).toEqual(['2606:4700:4700::1111', 6]);
    const rebound = guardedLookup(KEY, 443, async () => [...addresses, { address: '127.0.0.1', family: 4 }]);
    const error = await new Promise((resolve) => rebound('rebind.test', {}, (e) => resolve(e)));
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error).toMatchObject({ code: 'EBLOCKEDADDRESS' });
  });
});
