/**
 * Shared fixtures for the protocol tests: in-memory handshakes, real-socket pairs with cleanup,
 * and small waits on events. No assertion lives here.
 */
import { once, type EventEmitter } from 'node:events';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import { startModBridge, type ModBridge, type ModBridgeOptions } from '../../bridge/bridge.ts';
import type { Outcome, ProtocolError, ProtocolErrorCode } from '../../protocol/errors.ts';
import type { FrameBody } from '../../protocol/frames.ts';
import { PROTOCOL_ERRORS } from '../../protocol/errors.ts';
import { DaemonHandshake, ModHandshake, type Established } from '../../protocol/handshake.ts';
import { generateIdentity, type KeyPair } from '../../protocol/keys.ts';
import { ModLinkServer, type ModLinkServerOptions } from '../../protocol/link-server.ts';
import { Session } from '../../protocol/session.ts';

export const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

/** Asserts a rejection: the code, and the close code the table gives it. */
export function expectRejected<T>(outcome: Outcome<T>, code: ProtocolErrorCode): ProtocolError {
  expect(outcome.ok).toBe(false);
  const error = (outcome as { ok: false; error: ProtocolError }).error;
  expect(error.code).toBe(code);
  expect(error.closeCode).toBe(PROTOCOL_ERRORS[code].closeCode);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

export interface Identities {
  daemon: KeyPair;
  mod: KeyPair;
}

export function identities(): Identities {
  return { daemon: generateIdentity(), mod: generateIdentity() };
}

export interface InMemoryLink {
  daemon: Established;
  mod: Established;
  /** The daemon's session (it sends `ready` first) and the mod's (awaiting it). */
  daemonSession: Session;
  modSession: Session;
}

/** Runs a full handshake between the two machines, no socket. */
export function handshakeInMemory(ids: Identities = identities()): InMemoryLink {
  const mod = new ModHandshake({
    identity: ids.mod,
    daemonPublicKey: ids.daemon.publicKey,
    modVersion: '2.0.47',
  });
  const daemon = new DaemonHandshake({ identity: ids.daemon, trustedModKeys: () => [ids.mod.publicKey] });
  const welcome = daemon.receive(mod.start());
  const auth = mod.receive(welcome.reply as Uint8Array);
  const done = daemon.receive(auth.reply as Uint8Array);
  if (!auth.established || !done.established) throw new Error('handshake failed');
  return {
    daemon: done.established,
    mod: auth.established,
    daemonSession: new Session(done.established),
    modSession: new Session(auth.established),
  };
}

/** An in-memory link whose mod session has already accepted `ready`. */
export function openInMemory(ids?: Identities): InMemoryLink {
  const link = handshakeInMemory(ids);
  const ready = link.modSession.open(link.daemonSession.seal([{ t: 'ready' }]));
  if (!ready.ok) throw ready.error;
  return link;
}

const cleanups: Array<() => Promise<void> | void> = [];

/** Registers teardown work; `runCleanups` (in afterEach) runs it newest first. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) await (cleanups.pop() as () => Promise<void> | void)();
}

export const FAST = { handshakeTimeoutMs: 2_000, heartbeatMs: 60_000, heartbeatTimeoutMs: 60_000 };

export async function startServer(
  ids: Identities,
  options: Partial<ModLinkServerOptions> = {},
): Promise<{ server: ModLinkServer; url: string }> {
  const server = new ModLinkServer({
    identity: ids.daemon,
    trustedModKeys: () => [ids.mod.publicKey],
    ...FAST,
    ...options,
  });
  const { port } = await server.listen('127.0.0.1', 0);
  onCleanup(() => server.close());
  return { server, url: `ws://127.0.0.1:${port}` };
}

export function startBridge(
  ids: Identities,
  url: string,
  options: Partial<ModBridgeOptions> = {},
): ModBridge {
  const bridge = startModBridge({
    url,
    identity: ids.mod,
    daemonPublicKey: ids.daemon.publicKey,
    modVersion: '2.0.47',
    handlers: {},
    backoff: { initialMs: 10, maxMs: 50 },
    ...FAST,
    ...options,
  });
  onCleanup(() => bridge.close());
  return bridge;
}

/** A server and a bridge with an authenticated session between them. */
export async function connectedPair(
  options: { server?: Partial<ModLinkServerOptions>; bridge?: Partial<ModBridgeOptions> } = {},
): Promise<{ ids: Identities; server: ModLinkServer; bridge: ModBridge; url: string }> {
  const ids = identities();
  const { server, url } = await startServer(ids, options.server);
  const serverSide = nextEvent(server, 'connect');
  const bridge = startBridge(ids, url, options.bridge);
  await Promise.all([serverSide, nextEvent(bridge, 'connect')]);
  return { ids, server, bridge, url };
}

/** A raw ws client (no protocol), closed at cleanup. */
export async function rawClient(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  onCleanup(() => socket.terminate());
  await once(socket, 'open');
  return socket;
}

/** Resolves with the close code and reason a raw socket receives. */
export async function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  const [code, reason] = (await once(socket, 'close')) as [number, Buffer];
  return { code, reason: reason.toString('utf8') };
}

/** The next emission of `event`, without `events.once`'s rejection when 'error' is emitted first. */
export function nextEvent<T extends unknown[]>(emitter: EventEmitter, event: string): Promise<T> {
  return new Promise((resolve) => emitter.once(event, (...args: unknown[]) => resolve(args as T)));
}

/** Buffers a socket's binary messages so a test can await them one at a time. */
export function messageQueue(socket: WebSocket): { next: () => Promise<Uint8Array> } {
  const buffered: Uint8Array[] = [];
  const waiting: Array<(message: Uint8Array) => void> = [];
  socket.on('message', (data: Buffer) => {
    const waiter = waiting.shift();
    if (waiter) waiter(data);
    else buffered.push(data);
  });
  return {
    next: () => {
      const message = buffered.shift();
      return message ? Promise.resolve(message) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/**
 * A hand-driven mod over a raw socket: the handshake done, the daemon's first frame opened (its
 * bodies, `ready` first, are in `first`), nothing automatic.
 */
export async function rawModSession(
  url: string,
  ids: Identities,
): Promise<{
  socket: WebSocket;
  session: Session;
  next: () => Promise<Uint8Array>;
  first: FrameBody[];
  established: Established;
}> {
  const socket = await rawClient(url);
  const { next } = messageQueue(socket);
  const handshake = new ModHandshake({
    identity: ids.mod,
    daemonPublicKey: ids.daemon.publicKey,
    modVersion: 'raw',
  });
  socket.send(handshake.start());
  const step = handshake.receive(await next());
  if (!step.established || !step.reply) throw step.error ?? new Error('no session');
  socket.send(step.reply);
  const session = new Session(step.established);
  const ready = session.open(await next());
  if (!ready.ok) throw ready.error;
  return { socket, session, next, first: ready.value, established: step.established };
}

/** Opens the next frame a raw peer receives, or throws its rejection. */
export async function nextBodies(peer: {
  session: Session;
  next: () => Promise<Uint8Array>;
}): Promise<FrameBody[]> {
  const opened = peer.session.open(await peer.next());
  if (!opened.ok) throw opened.error;
  return opened.value;
}

/**
 * A hand-driven daemon on a raw ws server for one bridge: it completes the handshake, sends
 * `ready` alone, and hands the test the session to send and open frames with.
 */
export async function rawDaemonSession(ids: Identities): Promise<{
  url: string;
  accepted: Promise<{ socket: WebSocket; session: Session; next: () => Promise<Uint8Array> }>;
}> {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  onCleanup(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  const accepted = new Promise<{ socket: WebSocket; session: Session; next: () => Promise<Uint8Array> }>(
    (resolve) => {
      wss.once('connection', (socket) => {
        onCleanup(() => socket.terminate());
        void daemonSide(ids, socket).then(resolve);
      });
    },
  );
  const { port } = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}`, accepted };
}

async function daemonSide(
  ids: Identities,
  socket: WebSocket,
): Promise<{ socket: WebSocket; session: Session; next: () => Promise<Uint8Array> }> {
  const { next } = messageQueue(socket);
  const handshake = new DaemonHandshake({ identity: ids.daemon, trustedModKeys: () => [ids.mod.publicKey] });
  socket.send(handshake.receive(await next()).reply as Uint8Array);
  const step = handshake.receive(await next());
  if (!step.established) throw step.error ?? new Error('no session');
  const session = new Session(step.established);
  socket.send(session.seal([{ t: 'ready' }]));
  return { socket, session, next };
}

/** A hand-driven daemon on a raw ws server: it completes handshakes, sends `ready`, then stays silent. */
export async function rawDaemon(
  ids: Identities,
  behaviour: 'handshake' | 'silent' = 'handshake',
): Promise<{ url: string; sockets: WebSocket[] }> {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const sockets: WebSocket[] = [];
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.terminate();
        wss.close(() => resolve());
      }),
  );
  wss.on('connection', (socket) => {
    sockets.push(socket);
    if (behaviour === 'silent') return;
    const handshake = new DaemonHandshake({
      identity: ids.daemon,
      trustedModKeys: () => [ids.mod.publicKey],
    });
    socket.on('message', (data: Buffer) => {
      if (handshake.state === 'done') return;
      const step = handshake.receive(data);
      if (step.reply) socket.send(step.reply);
      if (step.established) socket.send(new Session(step.established).seal([{ t: 'ready' }]));
    });
  });
  const { port } = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}`, sockets };
}

/**
 * Every truncation of `frame` is refused as malformed or with a bad tag by a fresh session of the
 * link's daemon end, and the whole frame opens: a cut frame never half-opens.
 */
export function expectOnlyWholeFrameOpens(link: InMemoryLink, frame: Uint8Array): void {
  for (let length = 0; length < frame.length; length += 1) {
    const opened = new Session(link.daemon).open(frame.subarray(0, length));
    expect(opened.ok).toBe(false);
    expect(['malformed', 'bad_mac']).toContain((opened as { ok: false; error: { code: string } }).error.code);
  }
  expect(new Session(link.daemon).open(frame).ok).toBe(true);
}
