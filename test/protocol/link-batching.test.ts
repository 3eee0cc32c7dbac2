/**
 * Batching over real sockets (PROTOCOL §4.2): what the daemon and the bridge put in one frame,
 * and how each end handles a frame of several bodies however the WebSocket layer delivers it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { aeadKey, sealFrame } from '../../protocol/aead.ts';
import { encode } from '../../protocol/codec.ts';
import type { FrameBody } from '../../protocol/frames.ts';
import type { LinkCallError } from '../../protocol/link-server.ts';
import {
  closeOf,
  identities,
  nextBodies,
  nextEvent,
  rawDaemonSession,
  rawModSession,
  runCleanups,
  startBridge,
  startServer,
} from './support.ts';

afterEach(runCleanups);

const status = (id: number, players: number): FrameBody => ({
  t: 'res',
  id,
  ok: true,
  result: { player_count: players },
});
const ids = (bodies: FrameBody[]): number[] => bodies.map((body) => (body as { id: number }).id);

/** A daemon and a hand-driven mod with an open session, and `count` calls made in one turn. */
async function callsInOneTurn(count: number, limits?: { maxBytes: number }) {
  const keys = identities();
  const { server, url } = await startServer(keys, limits ? { limits } : {});
  const connected = nextEvent(server, 'connect');
  const mod = await rawModSession(url, keys);
  await connected;
  const calls = Array.from({ length: count }, () => server.call('server.status', {}));
  for (const call of calls) call.catch(() => {}); // settled or lost with the link, per test
  return { server, mod, calls };
}

describe('the daemon end', () => {
  it('sends a call made from the connect listener in its first frame, after ready', async () => {
    const keys = identities();
    const { server, url } = await startServer(keys);
    server.once('connect', () => void server.call('server.status', {}).catch(() => {}));
    const mod = await rawModSession(url, keys);
    expect(mod.first.map((body) => body.t)).toEqual(['ready', 'req']);
  });

  it('sends the calls made in one turn in one frame, in call order', async () => {
    const { mod } = await callsInOneTurn(5);
    expect(ids(await nextBodies(mod))).toEqual([1, 2, 3, 4, 5]);
  });

  it('splits the calls of one turn at the byte bound, keeping their order across frames', async () => {
    const { mod } = await callsInOneTurn(12, { maxBytes: 160 });
    const frames: FrameBody[][] = [];
    while (frames.flat().length < 12) frames.push(await nextBodies(mod));
    expect(frames.length).toBeGreaterThan(1);
    expect(ids(frames.flat())).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('settles responses that share a frame with each other and with a ping, and answers the ping', async () => {
    const { mod, calls } = await callsInOneTurn(2);
    await nextBodies(mod);
    mod.socket.send(mod.session.seal([status(2, 20), { t: 'ping', n: 9 }, status(1, 10)]));
    await expect(Promise.all(calls)).resolves.toEqual([{ player_count: 10 }, { player_count: 20 }]);
    expect(await nextBodies(mod)).toEqual([{ t: 'pong', n: 9 }]);
  });

  it('handles a multi-body frame delivered in one-byte WebSocket fragments', async () => {
    const { mod, calls } = await callsInOneTurn(2);
    await nextBodies(mod);
    const frame = mod.session.seal([status(1, 1), status(2, 2)]);
    for (let i = 0; i < frame.length; i += 1) {
      mod.socket.send(frame.subarray(i, i + 1), { binary: true, fin: i === frame.length - 1 });
    }
    await expect(Promise.all(calls)).resolves.toEqual([{ player_count: 1 }, { player_count: 2 }]);
  });

  it('handles a multi-body frame split across two WebSocket fragments', async () => {
    const { mod, calls } = await callsInOneTurn(2);
    await nextBodies(mod);
    const frame = mod.session.seal([status(1, 1), status(2, 2)]);
    const half = Math.floor(frame.length / 2);
    mod.socket.send(frame.subarray(0, half), { binary: true, fin: false });
    mod.socket.send(frame.subarray(half), { binary: true, fin: true });
    await expect(Promise.all(calls)).resolves.toEqual([{ player_count: 1 }, { player_count: 2 }]);
  });

  it('acts on no body of a rejected frame: a valid response ahead of a req is not settled', async () => {
    const { mod, calls } = await callsInOneTurn(1);
    await nextBodies(mod);
    const req = { t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 1 };
    mod.socket.send(mod.session.seal([status(1, 1), req as FrameBody]));
    expect(await closeOf(mod.socket)).toEqual({ code: 4021, reason: 'unexpected_frame' });
    expect(((await calls[0]?.catch((error: unknown) => error)) as LinkCallError).kind).toBe('link_lost');
  });

  it.each([
    ['an empty batch', Uint8Array.of(0x90)],
    ['a bare body', encode({ t: 'pong', n: 1 })],
  ])('closes with invalid_batch (4022) on %s', async (_name, plaintext) => {
    const keys = identities();
    const { url } = await startServer(keys);
    const mod = await rawModSession(url, keys);
    mod.socket.send(sealFrame(aeadKey(mod.established.sendKey), 1, plaintext)); // seal() refuses these
    expect(await closeOf(mod.socket)).toEqual({ code: 4022, reason: 'invalid_batch' });
  });

  it('sends the bodies queued before close() ahead of the close frame', async () => {
    const { server, mod } = await callsInOneTurn(1);
    const closed = closeOf(mod.socket);
    const closing = server.close();
    expect(ids(await nextBodies(mod))).toEqual([1]);
    expect(await closed).toEqual({ code: 4000, reason: 'shutdown' });
    await closing;
  });
});

describe('the bridge end', () => {
  it('answers the requests and the ping of one frame in one frame', async () => {
    const keys = identities();
    const daemon = await rawDaemonSession(keys);
    let players = 0;
    const bridge = startBridge(keys, daemon.url, {
      handlers: { 'server.status': async () => ({ player_count: (players += 1) }) },
    });
    const peer = await daemon.accepted;
    await nextEvent(bridge, 'connect');
    const req = (id: number): FrameBody => ({
      t: 'req',
      id,
      op: 'server.status',
      args: {},
      deadline_ms: 5_000,
    });
    peer.socket.send(peer.session.seal([req(1), { t: 'ping', n: 4 }, req(2), req(3)]));
    const answer = await nextBodies(peer);
    expect(answer).toHaveLength(4);
    expect(answer).toContainEqual({ t: 'pong', n: 4 });
    expect(ids(answer.filter((body) => body.t === 'res'))).toEqual([1, 2, 3]);
  });
});
