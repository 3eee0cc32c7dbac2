import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { OpResult } from '../../protocol/ops/index.ts';
import { silentFlood, silentSocket } from '../support/sockets.ts';
import {
  closeOf,
  identities,
  nextEvent,
  onCleanup,
  rawClient,
  runCleanups,
  startBridge,
  startServer,
} from './support.ts';

afterEach(runCleanups);

/** A silent socket to a ws:// url, destroyed after the test. */
async function silentTo(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = await silentSocket(hostname, Number(port));
  onCleanup(() => void socket.destroy());
  return socket;
}

const status = { 'server.status': (): OpResult<'server.status'> => ({ player_count: 3 }) };

describe('the mod-link port admits unauthenticated connections for a bounded time', () => {
  it('closes a TCP connection that never sends a byte after the handshake timeout', async () => {
    const { url } = await startServer(identities(), { handshakeTimeoutMs: 100 });
    const socket = await silentTo(url);
    await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
  });

  it('closes a connection that never finishes its WebSocket upgrade after the handshake timeout', async () => {
    const { url } = await startServer(identities(), { handshakeTimeoutMs: 100 });
    const socket = await silentTo(url);
    socket.write('GET / HTTP/1.1\r\nHost: modgate\r\nUpgrade: websocket\r\n');
    await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
  });

  it('answers a plain HTTP request with 426 Upgrade Required', async () => {
    const { url } = await startServer(identities());
    const response = await fetch(url.replace('ws:', 'http:'));
    expect(response.status).toBe(426);
  });

  it('selects no subprotocol when a client offers one', async () => {
    const { url } = await startServer(identities());
    const upgrade = request(url.replace('ws:', 'http:'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.alloc(16, 1).toString('base64'),
        'sec-websocket-protocol': 'modgate.v1',
      },
    });
    upgrade.end();
    const [response, socket] = (await once(upgrade, 'upgrade')) as [IncomingMessage, Socket];
    socket.destroy();
    expect(response.statusCode).toBe(101);
    expect(response.headers['sec-websocket-protocol']).toBeUndefined();
  });
});

describe('the mod-link port under a flood of unauthenticated connections', () => {
  it('lets the mod connect and answer a call while 2,000 silent sockets from its own address are open', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids, { handshakeTimeoutMs: 60_000 });
    const { hostname, port } = new URL(url);
    const flood = await silentFlood(hostname, Number(port), 2_000);
    onCleanup(flood.release);
    const connected = nextEvent(server, 'connect');
    startBridge(ids, url, { handlers: status });
    await connected;
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 3 });
    expect(server.pendingConnections).toBeLessThanOrEqual(8);
    expect(flood.open()).toBeLessThanOrEqual(8);
  });

  it('lets the mod in while upgraded WebSockets that never say hello fill every slot', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids, {
      handshakeTimeoutMs: 60_000,
      maxConnections: 4,
      maxConnectionsPerAddress: 4,
    });
    const idle = await Promise.all(Array.from({ length: 4 }, () => rawClient(url)));
    const evicted = closeOf(idle[0] as Awaited<ReturnType<typeof rawClient>>);
    const connected = nextEvent(server, 'connect');
    startBridge(ids, url, { handlers: status });
    await connected;
    expect(await evicted).toEqual({ code: 4002, reason: 'too_many_connections' });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 3 });
  });

  it('no longer counts the mod once it has authenticated', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids, { maxConnections: 1, maxConnectionsPerAddress: 1 });
    const connected = nextEvent(server, 'connect');
    startBridge(ids, url, { handlers: status });
    await connected;
    expect(server.pendingConnections).toBe(0);
    const stranger = await rawClient(url);
    const closed = closeOf(stranger);
    await rawClient(url); // evicts the stranger, not the authenticated mod
    expect(await closed).toEqual({ code: 4002, reason: 'too_many_connections' });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 3 });
  });
});
