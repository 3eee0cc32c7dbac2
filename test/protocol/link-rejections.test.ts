/**
 * The daemon end over a real socket, fed by a hand-driven mod: each malformed, forged or
 * out-of-order input closes the link with its own close code and reason.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ModHandshake } from '../../protocol/handshake.ts';
import { closeOf, identities, rawClient, rawModSession, runCleanups, startServer } from './support.ts';

afterEach(runCleanups);

describe('ModLinkServer rejections over a real socket', () => {
  it('closes with bad_mac (4040) on a forged frame', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const { socket, session } = await rawModSession(url, ids);
    const frame = session.seal([{ t: 'ping', n: 1 }]);
    frame[frame.length - 1] = (frame[frame.length - 1] as number) ^ 1;
    socket.send(frame);
    expect(await closeOf(socket)).toEqual({ code: 4040, reason: 'bad_mac' });
  });

  it('closes with sequence (4041) on a replayed frame', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const { socket, session } = await rawModSession(url, ids);
    const frame = session.seal([{ t: 'pong', n: 1 }]);
    socket.send(frame);
    socket.send(frame);
    expect(await closeOf(socket)).toEqual({ code: 4041, reason: 'sequence' });
  });

  it('closes with sequence (4041) on reordered frames', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const { socket, session } = await rawModSession(url, ids);
    const first = session.seal([{ t: 'pong', n: 1 }]);
    socket.send(session.seal([{ t: 'pong', n: 2 }]));
    socket.send(first);
    expect(await closeOf(socket)).toEqual({ code: 4041, reason: 'sequence' });
  });

  it('closes with bad_mac (4040) on a frame from another session', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const first = await rawModSession(url, ids);
    const second = await rawModSession(url, ids); // supersedes the first; its keys differ
    const closed = closeOf(second.socket);
    second.socket.send(first.session.seal([{ t: 'pong', n: 1 }]));
    expect(await closed).toEqual({ code: 4040, reason: 'bad_mac' });
  });

  it('closes with malformed (4010) on a text message', async () => {
    const socket = await rawClient((await startServer(identities())).url);
    socket.send('hello');
    expect(await closeOf(socket)).toEqual({ code: 4010, reason: 'malformed' });
  });

  it('closes with malformed (4010) on garbage instead of a hello', async () => {
    const socket = await rawClient((await startServer(identities())).url);
    socket.send(Buffer.from('82a174', 'hex'));
    expect(await closeOf(socket)).toEqual({ code: 4010, reason: 'malformed' });
  });

  it('closes with unexpected_frame (4021) on a req sent by the mod', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const { socket, session } = await rawModSession(url, ids);
    socket.send(session.seal([{ t: 'req', id: 1, op: 'server.status', args: {}, deadline_ms: 1 }]));
    expect(await closeOf(socket)).toEqual({ code: 4021, reason: 'unexpected_frame' });
  });

  it('closes with frame_too_large (4011) when a body exceeds the codec limit', async () => {
    const ids = identities();
    const { url } = await startServer(ids, { limits: { maxBytes: 64 } });
    const { socket, session } = await rawModSession(url, ids);
    socket.send(session.seal([{ t: 'pong', n: 1, pad: 'x'.repeat(100) } as never]));
    expect(await closeOf(socket)).toEqual({ code: 4011, reason: 'frame_too_large' });
  });

  it('lets ws close with 1009 when a message exceeds maxPayload', async () => {
    const socket = await rawClient((await startServer(identities(), { maxPayload: 1024 })).url);
    socket.send(new Uint8Array(2048));
    expect((await closeOf(socket)).code).toBe(1009);
  });

  it('accepts a hello delivered in one-byte WebSocket fragments', async () => {
    const ids = identities();
    const { url } = await startServer(ids);
    const socket = await rawClient(url);
    const hello = new ModHandshake({
      identity: ids.mod,
      daemonPublicKey: ids.daemon.publicKey,
      modVersion: 'x',
    }).start();
    const reply = once(socket, 'message');
    for (let i = 0; i < hello.length; i += 1) {
      socket.send(hello.subarray(i, i + 1), { binary: true, fin: i === hello.length - 1 });
    }
    const [welcome] = (await reply) as [Buffer];
    expect(welcome.includes(Buffer.from('welcome'))).toBe(true);
  });
});
