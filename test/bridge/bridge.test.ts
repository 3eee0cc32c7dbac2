import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay, DEFAULT_BACKOFF } from '../../protocol/backoff.ts';
import { startModBridge } from '../../bridge/bridge.ts';
import type { ProtocolError } from '../../protocol/errors.ts';
import { generateIdentity } from '../../protocol/keys.ts';
import type { OpResult } from '../../protocol/ops/index.ts';
import {
  closeOf,
  connectedPair,
  identities,
  nextEvent,
  rawDaemon,
  runCleanups,
  startBridge,
  startServer,
} from '../protocol/support.ts';

afterEach(runCleanups);

describe('the mod bridge', () => {
  it('reports connected once the session is open', async () => {
    const { bridge } = await connectedPair();
    expect(bridge.connected).toBe(true);
  });

  it('redials and re-authenticates after dropLink', async () => {
    const { server, bridge } = await connectedPair({
      bridge: { handlers: { 'server.status': () => ({ player_count: 5 }) } },
    });
    const disconnected = nextEvent<[number, string]>(bridge, 'disconnect');
    const reconnected = nextEvent(server, 'connect');
    bridge.dropLink();
    const [code] = await disconnected;
    expect(code).toBe(1006); // no close frame: the TCP connection was cut
    await reconnected;
    await expect(server.call('server.status', {})).resolves.toEqual({ player_count: 5 });
  });

  it('redials after the daemon closes the link for a protocol error', async () => {
    const { server, bridge } = await connectedPair();
    const errors: string[] = [];
    server.on('error', (error) => errors.push(error.code));
    const disconnected = nextEvent<[number, string]>(bridge, 'disconnect');
    const reconnected = nextEvent(server, 'connect');
    bridge.sendRaw(new Uint8Array(40)); // unencrypted bytes where a session frame belongs
    expect(await disconnected).toEqual([4040, 'bad_mac']);
    await reconnected;
    expect(errors).toEqual(['bad_mac']);
  });

  it('answers internal and keeps the link when a result holds a str longer than the daemon accepts', async () => {
    // PROTOCOL §9.6 rule 4: a 300 KiB str fits a 1 MiB frame but not the 256 KiB str limit (§2.2),
    // which would close the link at the daemon (string_too_long) with every call pending on it.
    const long = 'x'.repeat(300 * 1024);
    const { server, bridge } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': () => ({ player_count: 1, note: long }) as unknown as OpResult<'server.status'>,
          'players.online': () => ({ online: 0, data: [] }),
        },
      },
    });
    let disconnected = false;
    bridge.on('disconnect', () => (disconnected = true));
    const failed = await server.call('server.status', {}).catch((error: unknown) => error);
    expect(failed).toMatchObject({ kind: 'remote', opError: { code: 'internal' } });
    await expect(server.call('players.online', {})).resolves.toEqual({ online: 0, data: [] });
    expect(disconnected).toBe(false);
  });

  it('answers pings with pongs so the daemon keeps the link', async () => {
    const { server, bridge } = await connectedPair({
      server: { heartbeatMs: 10, heartbeatTimeoutMs: 60_000 },
      bridge: { heartbeatMs: 60_000, heartbeatTimeoutMs: 60_000 },
    });
    let disconnected = false;
    bridge.on('disconnect', () => (disconnected = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(disconnected).toBe(false);
    expect(server.peer).not.toBeNull();
  });

  it('stops redialing after close() and closes the link with shutdown', async () => {
    const { server, bridge } = await connectedPair();
    const disconnected = nextEvent<[number, string]>(server, 'disconnect');
    await bridge.close();
    expect(await disconnected).toEqual([4000, 'shutdown']);
    expect(bridge.connected).toBe(false);
    expect(server.peer).toBeNull();
  });

  it('aborts the signal of in-flight handlers when the link is lost', async () => {
    let signal: AbortSignal | null = null;
    let markStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const { server, bridge } = await connectedPair({
      bridge: {
        handlers: {
          'server.status': (_args, ctx) => {
            signal = ctx.signal;
            markStarted();
            return new Promise<OpResult<'server.status'>>(() => {});
          },
        },
      },
    });
    void server.call('server.status', {}, { deadlineMs: 600_000 }).catch(() => {});
    await started;
    const aborted = once(signal as unknown as AbortSignal, 'abort');
    bridge.dropLink();
    await aborted;
    expect((signal as unknown as AbortSignal).aborted).toBe(true);
  });

  it('rejects a daemon other than the pinned one with unknown_identity (4031)', async () => {
    const ids = identities();
    const { server, url } = await startServer(ids);
    const bridge = startBridge({ ...ids, daemon: generateIdentity() }, url);
    const [error] = await nextEvent<[ProtocolError]>(bridge, 'error');
    expect([error.code, error.closeCode]).toEqual(['unknown_identity', 4031]);
    expect(server.peer).toBeNull();
  });

  it('closes with handshake_timeout (4033) when the daemon never answers the hello', async () => {
    const ids = identities();
    const daemon = await rawDaemon(ids, 'silent');
    const bridge = startBridge(ids, daemon.url, {
      handshakeTimeoutMs: 30,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    const [error] = await nextEvent<[ProtocolError]>(bridge, 'error');
    expect([error.code, error.closeCode]).toEqual(['handshake_timeout', 4033]);
    expect(await closeOf(daemon.sockets[0] as never)).toEqual({ code: 4033, reason: 'handshake_timeout' });
  });

  it('closes with heartbeat_timeout (4042) when the daemon falls silent', async () => {
    const ids = identities();
    const daemon = await rawDaemon(ids);
    const bridge = startBridge(ids, daemon.url, {
      heartbeatMs: 60_000,
      heartbeatTimeoutMs: 40,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await nextEvent(bridge, 'connect');
    const disconnected = nextEvent<[number, string]>(bridge, 'disconnect');
    const [error] = await nextEvent<[ProtocolError]>(bridge, 'error');
    expect([error.code, error.closeCode]).toEqual(['heartbeat_timeout', 4042]);
    expect(await disconnected).toEqual([4042, 'heartbeat_timeout']);
  });

  it('waits its longest backoff, and says so, after another mod with its identity supersedes it', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const warnings: Array<Record<string, unknown>> = [];
    const log = {
      debug: () => {},
      info: () => {},
      warn: (_message: string, fields: Record<string, unknown> = {}) => void warnings.push(fields),
      error: () => {},
    };
    const first = startBridge(ids, url, { backoff: { initialMs: 1, maxMs: 60_000 }, log });
    await once(first, 'connect');
    const superseded = once(first, 'disconnect');
    startBridge(ids, url, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    expect(await superseded).toEqual([4001, 'superseded']);
    expect(warnings).toContainEqual({ event: 'mod_superseded', retry_in_ms: 60_000 });
  });

  it('checks its options once, at construction', () => {
    const ids = identities();
    const base = {
      url: 'ws://127.0.0.1:1',
      identity: ids.mod,
      daemonPublicKey: ids.daemon.publicKey,
      modVersion: '1',
      handlers: {},
    };
    expect(() => startModBridge({ ...base, daemonPublicKey: new Uint8Array(31) })).toThrow(TypeError);
    expect(() => startModBridge({ ...base, modVersion: '' })).toThrow(TypeError);
    expect(() => startModBridge({ ...base, url: 'not a url' })).toThrow(TypeError);
    expect(() => startModBridge({ ...base, backoff: { initialMs: 0 } })).toThrow(RangeError);
  });
});

describe('the redial backoff', () => {
  it('doubles its ceiling from 250 ms up to 10 s by default', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => backoffCeiling(attempt, DEFAULT_BACKOFF));
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('draws uniformly below the ceiling (full jitter)', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(0);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.999_999)).toBe(1999);
  });

  it('never overflows for a very large attempt count', () => {
    expect(backoffCeiling(10_000, { initialMs: 1, maxMs: 5 })).toBe(5);
  });
});
