import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidStringError } from '../../protocol/codec.ts';
import type { ProtocolError } from '../../protocol/errors.ts';
import { LinkCallError, ModLinkServer } from '../../protocol/link-server.ts';
import { silentLogger, type Logger } from '../../protocol/log.ts';
import { OpError, type OpResult } from '../../protocol/ops/index.ts';
import { eventually } from '../../harness/stack.ts';
import {
  closeOf,
  connectedPair,
  identities,
  nextEvent,
  rawClient,
  rawModSession,
  runCleanups,
  startBridge,
  startServer,
} from './support.ts';

afterEach(runCleanups);

type Status = OpResult<'server.status'>;

async function rejection(promise: Promise<unknown>): Promise<LinkCallError> {
  const error = await promise.then(
    () => null,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(LinkCallError);
  return error as LinkCallError;
}

/** A handler that never answers until released. */
function stalled(): {
  handler: () => Promise<Status>;
  release: (value: Status) => void;
  started: Promise<void>;
} {
  let release: (value: Status) => void = () => {};
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    handler: () => {
      markStarted();
      return new Promise<Status>((resolve) => (release = resolve));
    },
    release: (value) => release(value),
    started,
  };
}

describe('ModLinkServer.call', () => {
  it('round-trips an op to the mod and back, with the peer described', async () => {
    const { server } = await connectedPair({
      bridge: { handlers: { 'server.status': () => ({ player_count: 7 }) } },
    });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 7 });
    expect(server.peer).toMatchObject({ modVersion: '2.0.47', protocolVersion: 1 });
    expect(server.peer?.connectedAt).toBeInstanceOf(Date);
  });

  it('accepts a call made from the connect listener, after ready has gone out', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids);
    const answered = new Promise((resolve, reject) => {
      server.once('connect', () => server.call('server.status', {}).then(resolve, reject));
    });
    startBridge(ids, url, { handlers: { 'server.status': () => ({ player_count: 1 }) } });
    await expect(answered).resolves.toEqual({ player_count: 1 });
  });

  it('sends the op id and the deadline to the handler', async () => {
    let seen: string | undefined;
    const { server } = await connectedPair({
      bridge: { handlers: { 'server.status': (_args, ctx) => ((seen = ctx.opId), { player_count: 0 }) } },
    });
    await server.call('server.status', {}, { opId: 'idem-42' });
    expect(seen).toBe('idem-42');
  });

  it('refuses a deadline that is not a positive number of milliseconds a timer can hold', async () => {
    const { server } = await connectedPair();
    for (const deadlineMs of [0, -5, Number.NaN, 2 ** 31]) {
      await expect(server.call('server.status', {}, { deadlineMs })).rejects.toThrow(RangeError);
    }
  });

  it('rejects with not_connected when no mod is connected', async () => {
    const { server } = await startServer(identities());
    expect((await rejection(server.call('server.status', {}))).kind).toBe('not_connected');
  });

  it('rejects with timeout past the deadline and drops the late answer quietly', async () => {
    const slow = stalled();
    const { server } = await connectedPair({ bridge: { handlers: { 'server.status': slow.handler } } });
    const call = server.call('server.status', {}, { deadlineMs: 20 });
    expect((await rejection(call)).kind).toBe('timeout');
    slow.release({ player_count: 1 }); // answers after the deadline: dropped, the link stays up
    expect(server.peer).not.toBeNull();
  });

  it('keeps the link up after a late answer, so the next call succeeds', async () => {
    let calls = 0;
    let releaseFirst: (value: Status) => void = () => {};
    const handler = (): Promise<Status> | Status => {
      calls += 1;
      if (calls === 1) return new Promise<Status>((resolve) => (releaseFirst = resolve));
      return { player_count: 2 };
    };
    const { server } = await connectedPair({ bridge: { handlers: { 'server.status': handler } } });
    expect((await rejection(server.call('server.status', {}, { deadlineMs: 20 }))).kind).toBe('timeout');
    releaseFirst({ player_count: 1 });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 2 });
  });

  it('rejects every pending call with link_lost at once when the link drops', async () => {
    const slow = stalled();
    const { server, bridge } = await connectedPair({
      bridge: { handlers: { 'server.status': slow.handler } },
    });
    const calls = [1, 2, 3].map(() => rejection(server.call('server.status', {}, { deadlineMs: 600_000 })));
    await slow.started;
    bridge.dropLink();
    const errors = await Promise.all(calls);
    expect(errors.map((error) => error.kind)).toEqual(['link_lost', 'link_lost', 'link_lost']);
  });

  it('rejects with bad_result when the mod answers with an invalid result, and logs the issues', async () => {
    const warnings: Array<Record<string, unknown> | undefined> = [];
    const log: Logger = { ...silentLogger, warn: (_message, fields) => warnings.push(fields) };
    const { server } = await connectedPair({
      server: { log },
      bridge: { handlers: { 'server.status': () => ({ player_count: -1 }) } },
    });
    expect((await rejection(server.call('server.status', {}))).kind).toBe('bad_result');
    expect(JSON.stringify(warnings)).toMatch(/player_count/);
    expect(server.peer).not.toBeNull();
  });

  it('rejects with remote and the op error when the handler throws an OpError', async () => {
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': () => {
            throw new OpError('rate_limited', 'slow down', { retry_after_sec: 9 });
          },
        },
      },
    });
    const error = await rejection(server.call('server.status', {}));
    expect(error.kind).toBe('remote');
    expect(error.opError).toEqual({
      code: 'rate_limited',
      message: 'slow down',
      details: { retry_after_sec: 9 },
    });
  });

  it('rejects with timeout when the mod reports that it gave up at the deadline (PROTOCOL §6.3)', async () => {
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': () => {
            throw new OpError('timeout', 'the game did not answer in time');
          },
        },
      },
    });
    const error = await rejection(server.call('server.status', {}));
    expect(error).toMatchObject({ kind: 'timeout', applied: false, opError: { code: 'timeout' } });
  });

  it('rejects with remote unsupported when the mod has no handler', async () => {
    const { server } = await connectedPair();
    const error = await rejection(server.call('server.status', {}));
    expect([error.kind, error.opError?.code]).toEqual(['remote', 'unsupported']);
  });

  it('rejects with remote invalid when the mod rejects the arguments', async () => {
    const { server } = await connectedPair({
      bridge: { handlers: { 'players.get': () => Promise.reject(new Error('not reached')) } },
    });
    const error = await rejection(server.call('players.get', { ref: 5 } as never));
    expect([error.kind, error.opError?.code]).toEqual(['remote', 'invalid']);
  });

  it('accepts a result with fields the op does not know and drops them (PROTOCOL §6.2)', async () => {
    const { server } = await connectedPair({
      bridge: { handlers: { 'server.status': () => ({ player_count: 1, tps: 60 }) as never } },
    });
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 1 });
  });

  it('rejects with remote internal when the handler result cannot be sent', async () => {
    const { server } = await connectedPair({
      bridge: { handlers: { 'server.status': () => ({ player_count: new Date() as unknown as number }) } },
    });
    const error = await rejection(server.call('server.status', {}));
    expect([error.kind, error.opError?.code]).toEqual(['remote', 'internal']);
  });
});

describe('ModLinkServer.call with text that has no UTF-8 form (PROTOCOL §2.6)', () => {
  it('refuses args holding a lone surrogate before sending anything, and keeps the link up', async () => {
    const seen: unknown[] = [];
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': () => ({ player_count: 1 }),
          'players.get': (args) => (seen.push(args), Promise.reject(new OpError('not_found', 'no'))),
        },
      },
    });
    const refused = await server
      .call('players.get', { ref: { platform_id: '\ud800' } } as never)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidStringError);
    expect(seen).toEqual([]);
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 1 });
  });

  it('answers internal when a handler returns a lone surrogate, and keeps the link up', async () => {
    let count = 0;
    const { server } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': () =>
            count++ === 0 ? { player_count: '\udfff' as unknown as number } : { player_count: 2 },
        },
      },
    });
    const error = await rejection(server.call('server.status', {}));
    expect([error.kind, error.opError?.code]).toEqual(['remote', 'internal']);
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 2 });
  });
});

describe('ModLinkServer connections', () => {
  it('supersedes the authenticated mod when another one authenticates', async () => {
    const slow = stalled();
    const { ids, server, bridge, url } = await connectedPair({
      bridge: { handlers: { 'server.status': slow.handler } },
    });
    const pending = rejection(server.call('server.status', {}, { deadlineMs: 600_000 }));
    await slow.started;
    const oldDisconnect = once(bridge, 'disconnect');
    const serverEvents: string[] = [];
    server.on('disconnect', (code: number) => serverEvents.push(`disconnect ${code}`));
    server.on('connect', () => serverEvents.push('connect'));
    const newcomer = startBridge(ids, url, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await once(newcomer, 'connect');
    const [code, reason] = (await oldDisconnect) as [number, string];
    expect([code, reason]).toEqual([4001, 'superseded']);
    expect((await pending).kind).toBe('link_lost');
    expect(serverEvents.slice(0, 2)).toEqual(['disconnect 4001', 'connect']);
  });

  it('closes the link with shutdown on close()', async () => {
    const ids = identities();
    const server = new ModLinkServer({ identity: ids.daemon, trustedModKeys: () => [ids.mod.publicKey] });
    const { port } = await server.listen('127.0.0.1', 0);
    const bridge = startBridge(ids, `ws://127.0.0.1:${port}`, {
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await once(bridge, 'connect');
    const disconnect = once(bridge, 'disconnect');
    await server.close();
    expect(await disconnect).toEqual([4000, 'shutdown']);
    expect(server.peer).toBeNull();
  });

  it('closes with unexpected_frame an events body on a session whose ready did not announce events', async () => {
    // PROTOCOL §9.1 rule 3: never stored, never acknowledged; the announcing daemon takes them.
    const ids = identities();
    for (const acceptEvents of [false, true]) {
      const { server, url } = await startServer(ids, { acceptEvents });
      const batches: unknown[] = [];
      server.on('events', (batch) => batches.push(batch));
      const mod = await rawModSession(url, ids);
      expect(mod.first).toEqual([acceptEvents ? { t: 'ready', events: true } : { t: 'ready' }]);
      const event = { seq: 1, type: 'player.left', at: '2025-06-01T12:00:00.000Z', data: {} };
      mod.socket.send(mod.session.seal([{ t: 'events', stream: 's', events: [event] }]));
      if (acceptEvents) {
        await eventually(() => batches.length === 1);
      } else {
        expect(await closeOf(mod.socket)).toEqual({ code: 4021, reason: 'unexpected_frame' });
        expect(batches).toEqual([]);
      }
    }
  });

  it('rejects an untrusted mod with unknown_identity and close code 4031', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids, { trustedModKeys: () => [] });
    const reported = once(server, 'error');
    startBridge(ids, url);
    const [error] = (await reported) as [ProtocolError];
    expect([error.code, error.closeCode]).toEqual(['unknown_identity', 4031]);
  });

  it('admits a mod as soon as its key is added to the trusted set', async () => {
    const ids = identities();
    let trusted: Uint8Array[] = [];
    const { server, url } = await startServer(ids, { trustedModKeys: () => trusted });
    const rejected = once(server, 'error');
    startBridge(ids, url);
    await rejected;
    trusted = [ids.mod.publicKey];
    await once(server, 'connect');
    expect(server.peer?.modVersion).toBe('2.0.47');
  });

  it('closes the oldest pending connection with too_many_connections to make room for a new one', async () => {
    const { url } = await startServer(identities(), { maxConnections: 1 });
    const first = await rawClient(url);
    const closed = closeOf(first);
    const second = await rawClient(url);
    expect(await closed).toEqual({ code: 4002, reason: 'too_many_connections' });
    expect(second.readyState).toBe(second.OPEN);
  });

  it('closes a connection that never finishes the handshake with handshake_timeout', async () => {
    const { server, url } = await startServer(identities(), { handshakeTimeoutMs: 30 });
    const reported = once(server, 'error');
    const socket = await rawClient(url);
    expect(await closeOf(socket)).toEqual({ code: 4033, reason: 'handshake_timeout' });
    expect(((await reported) as [ProtocolError])[0].code).toBe('handshake_timeout');
  });

  it('closes a silent authenticated mod with heartbeat_timeout', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids, { heartbeatTimeoutMs: 50 });
    const errors: string[] = [];
    server.on('error', (error) => errors.push(error.code));
    const { socket } = await rawModSession(url, ids);
    const disconnect = nextEvent(server, 'disconnect');
    expect(await closeOf(socket)).toEqual({ code: 4042, reason: 'heartbeat_timeout' });
    expect(await disconnect).toEqual([4042, 'heartbeat_timeout']);
    expect(errors).toEqual(['heartbeat_timeout']);
  });

  it('keeps a link alive with heartbeats well past the heartbeat timeout', async () => {
    const timers = { heartbeatMs: 10, heartbeatTimeoutMs: 2_000 };
    const { server } = await connectedPair({ server: timers, bridge: timers });
    let disconnected = false;
    server.on('disconnect', () => (disconnected = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(disconnected).toBe(false);
    expect(server.peer).not.toBeNull();
  });
});
