/**
 * What a client address counts as (daemon/http/client-address.ts): an IPv4 address on its own, an
 * IPv6 address by its network at the configured prefix length (a /64 unless told), and the
 * per-address connection cap counting real IPv6 loopback sockets by that network.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { addressGrouping, edgeSubject } from '../../../daemon/http/client-address.ts';
import { guardConnections } from '../../../daemon/http/connection-guard.ts';
import { eventually } from '../../../harness/stack.ts';

describe('addressGrouping', () => {
  it('counts IPv6 addresses of one /64 as one client by default, and IPv4 addresses one by one', () => {
    expect(edgeSubject('2001:db8:1:2::1')).toBe(edgeSubject('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(edgeSubject('2001:db8:1:2::1')).not.toBe(edgeSubject('2001:db8:1:3::1'));
    expect(edgeSubject('10.0.0.1')).not.toBe(edgeSubject('10.0.0.2'));
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(edgeSubject('::ffff:10.0.0.1')).toBe(edgeSubject('10.0.0.1'));
  });

  it('groups by the prefix length it is given', () => {
    const site = addressGrouping(48);
    expect(site('2001:db8:1:2::1')).toBe(site('2001:db8:1:ff::9'));
    expect(site('2001:db8:1:2::1')).not.toBe(site('2001:db8:2:2::1'));
    const single = addressGrouping(128);
    expect(single('2001:db8::1')).not.toBe(single('2001:db8::2'));
    expect(single('2001:db8::1')).toBe(single('2001:db8:0::1'));
  });

  it('leaves a zone out of the network, and a text that is no address as it is', () => {
    expect(edgeSubject('fe80::1%eth0')).toBe(edgeSubject('fe80::2'));
    expect(edgeSubject('not-an-address')).toBe('not-an-address');
  });

  it('refuses a prefix length that is no IPv6 prefix length', () => {
    for (const length of [0, 129, 64.5]) expect(() => addressGrouping(length)).toThrow(RangeError);
  });
});

describe('the per-address connection cap over IPv6 loopback', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server?.close();
    if (server) await once(server, 'close');
    server = undefined;
  });

  /** A TCP server on [::1] behind the guard; `refused` collects what it refused. */
  async function guarded(ipv6PrefixLength: number) {
    server = createServer();
    const refused: string[] = [];
    const guard = guardConnections(server, {
      maxConnections: 100,
      maxPerAddress: 2,
      firstByteTimeoutMs: 0,
      addressGroup: addressGrouping(ipv6PrefixLength),
      exempt: () => false,
      refuse: (socket, error) => {
        refused.push(error.code);
        socket.destroy();
      },
    });
    server.listen(0, '::1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const open = async () => {
      const socket = connect({ host: '::1', port, localAddress: '::1' });
      socket.on('error', () => undefined);
      sockets.push(socket);
      await once(socket, 'connect');
    };
    return { guard, refused, open };
  }

  it('counts another address of the same /64 as the same client, and refuses one over the cap', async () => {
    const { guard, refused, open } = await guarded(64);
    await open();
    await open();
    await eventually(() => guard.openFrom('::1') === 2);
    expect(guard.openFrom('::2')).toBe(2); // ::2 is in ::1's /64: the same client
    await open();
    await eventually(() => refused.length === 1);
    expect(refused).toEqual(['rate_limited']);
  });

  it('counts single addresses with a /128', async () => {
    const { guard, open } = await guarded(128);
    await open();
    await eventually(() => guard.openFrom('::1') === 1);
    expect(guard.openFrom('::2')).toBe(0);
  });
});
