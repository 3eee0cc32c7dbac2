/**
 * The daemon end of one mod connection as the conformance harness plays it (PROTOCOL §3–§6).
 * Unlike the daemon's link server it is built from the protocol's parts rather than its
 * `LinkConnection`, so a case can also send what a daemon never would: a welcome signed by
 * another key, a replayed welcome, a version the mod did not offer, forged tags, replayed or
 * skipped sequence numbers and raw plaintexts. What the mod sends back is still checked in full by
 * the protocol's own `Session`, so a mod that breaks the wire format is told which rule it broke.
 */
import { randomBytes } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { aeadKey, sealFrame, type AeadKey } from '../protocol/aead.ts';
import { decodeWith, encode } from '../protocol/codec.ts';
import { ProtocolError, type ProtocolErrorCode } from '../protocol/errors.ts';
import type { FrameBody, ModEvent, RemoteOpError } from '../protocol/frames.ts';
import {
  deriveSessionKeys,
  HANDSHAKE_LIMITS,
  parseAuth,
  parseHello,
  signedMessage,
  transcriptHash,
  type Hello,
} from '../protocol/handshake-messages.ts';
import { generateEphemeral, sign, verify, x25519, type KeyPair } from '../protocol/keys.ts';
import { messageBytes } from '../protocol/link-connection.ts';
import { Session } from '../protocol/session.ts';

/** How the harness answers the mod's hello (handshake cases change one thing each). */
export interface WelcomeTweak {
  /** Sign with this key instead of the data dir's: the mod must refuse it (`unknown_identity`). */
  signWith?: KeyPair;
  /** Choose this version whatever the mod offered (`unsupported_version` when not offered). */
  version?: number;
  /** Send these bytes as the welcome: one recorded on another connection (`bad_signature`). */
  replay?: Uint8Array;
}

/** Reads the auth, opens the session and sends `ready` (after the `before` bodies, a case's fault). */
export type Finish = (timeoutMs: number, events: boolean, before?: FrameBody[]) => Promise<void>;

export interface HandshakeResult {
  hello: Hello;
  /** The welcome as sent, so a later case can replay it. */
  welcome: Uint8Array;
}

export type CallAnswer =
  | { kind: 'ok'; result: unknown; ms: number; applied: boolean }
  | { kind: 'error'; error: RemoteOpError; ms: number; applied: boolean }
  | { kind: 'late'; ms: number; applied: boolean }
  | { kind: 'lost'; why: string; ms: number; applied: boolean };

export interface LinkClose {
  code: number;
  reason: string;
  /** Set when the harness closed the link because the mod broke a rule (a `ProtocolError`). */
  violation: ProtocolError | null;
}

export interface ReceivedEvents {
  stream: string;
  events: ModEvent[];
  /** The events' msgpack, summed as a daemon measures it (PROTOCOL §9.5: `{seq, type, at, data}`). */
  bytes: number;
}

/** PROTOCOL §9.5: an event's size is `{seq, type, at, data}` as the reference encoder writes it. */
function eventsBytes(events: readonly ModEvent[]): number {
  return events.reduce((sum, { seq, type, at, data }) => sum + encode({ seq, type, at, data }).length, 0);
}

interface PendingCall {
  op: string;
  started: number;
  applied: boolean;
  timer: NodeJS.Timeout;
  settle: (answer: CallAnswer) => void;
}

/** Time a call's answer may take past its deadline_ms on a loaded machine before it is late. */
const TRANSIT_GRACE_MS = 500;

export class HarnessLink {
  readonly socket: WebSocket;
  #inbox: Uint8Array[] = [];
  #inboxWaiter: (() => void) | null = null;
  #session: Session | null = null;
  #sendKey: AeadKey | null = null;
  /** The mod's own send key (mod→daemon): what a reflected frame is sealed with (§4.6). */
  #reflectKey: AeadKey | null = null;
  #sent = 0;
  #nextId = 1;
  #pings = 0;
  readonly #calls = new Map<number, PendingCall>();
  /** Requests answered (id → op), to tell a second `res` for one id from a late or unknown one. */
  readonly #answered = new Map<number, string>();
  /** Requests whose deadline passed unanswered: one late `res` each is no fault (§6.2). */
  readonly #late = new Map<number, string>();
  /** Requests the mod answered more than once (§6.2: exactly once), in order. */
  readonly answeredTwice: Array<{ id: number; op: string }> = [];
  /** Pings awaiting their pong: called with true on the pong, false when the link closes first. */
  readonly #pongs = new Map<number, (answered: boolean) => void>();
  #closed: LinkClose | null = null;
  readonly #closeWaiters: Array<(close: LinkClose) => void> = [];
  #violation: ProtocolError | null = null;
  #closing = false;
  /** `events` bodies received, in order (PROTOCOL §9.2). */
  readonly events: ReceivedEvents[] = [];
  /** Acknowledge each `events` body at once (PROTOCOL §9.3); cases of §9 turn it off. */
  autoAck = true;
  /** Bodies the mod sent that no call or case was waiting for (its own pings are answered). */
  readonly stray: FrameBody[] = [];
  /** Pings the mod sent (PROTOCOL §5.1). */
  modPings = 0;
  /** Whether this session's `ready` announced events (§9.1). */
  announcesEvents = false;
  /** When the session opened (epoch ms), or null. */
  openedAt: number | null = null;
  /** When the socket closed (epoch ms), or null. */
  closedAt: number | null = null;
  readonly #eventWaiters = new Set<() => void>();

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.binaryType = 'nodebuffer';
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on('close', (code, reason) => this.#onClose(code, reason.toString('utf8')));
    socket.on('error', () => {}); // the close that follows carries what a case needs
  }

  /** True while the session is open and neither side has begun to close it. */
  get isOpen(): boolean {
    return this.#session !== null && this.#closed === null && !this.#closing;
  }

  /** Requests the mod has answered on this link. */
  get answeredCount(): number {
    return this.#answered.size;
  }

  get closed(): LinkClose | null {
    return this.#closed;
  }

  /** Resolves when the socket has closed, or with null after `timeoutMs`. */
  waitClose(timeoutMs: number): Promise<LinkClose | null> {
    if (this.#closed) return Promise.resolve(this.#closed);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      this.#closeWaiters.push((close) => {
        clearTimeout(timer);
        resolve(close);
      });
    });
  }

  /** The next handshake message, or null when none came within `timeoutMs` or the link closed. */
  async nextMessage(timeoutMs: number): Promise<Uint8Array | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#inbox.length === 0) {
      if (this.#closed || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#inboxWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#inboxWaiter = null;
    }
    return this.#inbox.shift() ?? null;
  }

  /**
   * PROTOCOL §3.2–§3.3: reads the hello and answers with a welcome (changed by `tweak`). Throws a
   * `HandshakeProblem` naming what the mod did wrong.
   */
  async welcome(
    identity: KeyPair,
    trusted: readonly Uint8Array[],
    timeoutMs: number,
    tweak: WelcomeTweak = {},
  ): Promise<HandshakeResult & { finish: Finish }> {
    const bytes = await this.nextMessage(timeoutMs);
    if (bytes === null)
      throw new HandshakeProblem(this.#closed ? 'closed before its hello' : 'sent no hello');
    const hello = this.#parse(bytes, parseHello, 'hello');
    if (!trusted.some((key) => Buffer.compare(Buffer.from(key), Buffer.from(hello.id)) === 0)) {
      throw this.#refuse(
        "sent a hello whose id is not among the data dir's mod keys (mod-keys.json): give the mod this data dir's mod-credentials.json (`modgate mod credentials`)",
        new ProtocolError('unknown_identity'),
      );
    }
    const eph = generateEphemeral();
    const signer = tweak.signWith ?? identity;
    const nonce = randomBytes(32);
    if (tweak.version === undefined && !hello.versions.includes(1)) {
      throw this.#refuse(
        `offered versions [${hello.versions.join(', ')}] without 1, the only one this daemon speaks (§3.3)`,
        new ProtocolError('unsupported_version'),
      );
    }
    const version = tweak.version ?? 1;
    const th = transcriptHash({
      version,
      offered: hello.versions,
      hello,
      welcome: { id: signer.publicKey, nonce, eph: eph.publicKey },
    });
    const welcome =
      tweak.replay ??
      encode({
        t: 'welcome',
        version,
        id: signer.publicKey,
        nonce,
        eph: eph.publicKey,
        sig: sign(signer.secretKey, signedMessage('daemon', th)),
      });
    this.socket.send(welcome);
    const finish: Finish = async (authTimeoutMs, events, before = []) => {
      const auth = await this.nextMessage(authTimeoutMs);
      if (auth === null)
        throw new HandshakeProblem(this.#closed ? 'closed instead of sending auth' : 'sent no auth');
      const parsed = this.#parse(auth, parseAuth, 'auth');
      if (!verify(hello.id, signedMessage('mod', th), parsed.sig)) {
        this.fail(new ProtocolError('bad_signature', 'the mod signature does not verify'));
        throw new HandshakeProblem(
          'signed auth with a signature that does not verify over the transcript (§3.4–§3.5)',
        );
      }
      const shared = x25519(eph.secretKey, hello.eph);
      if (shared === null) {
        throw this.#refuse(
          'sent a hello.eph that is not a usable X25519 key',
          new ProtocolError('invalid_message'),
        );
      }
      const keys = deriveSessionKeys(shared, th);
      this.#sendKey = aeadKey(keys.daemonToMod);
      this.#reflectKey = aeadKey(keys.modToDaemon);
      const ready = events ? ({ t: 'ready', events: true } as const) : ({ t: 'ready' } as const);
      const keyPair = { role: 'daemon' as const, sendKey: keys.daemonToMod, receiveKey: keys.modToDaemon };
      this.#session = new Session(keyPair, undefined, { ready });
      for (const early of this.#inbox.splice(0)) this.#onSessionFrame(early);
      for (const body of before) this.send(body);
      // Without events, `events: false`: the same as absent (§9.1 rule 1), and the stricter test.
      if (events) this.send({ t: 'ready', events: true });
      else this.sendPlaintext(encode([{ t: 'ready', events: false }]));
      this.announcesEvents = events;
      this.openedAt = Date.now();
    };
    return { hello, welcome, finish };
  }

  /** Decodes and parses one handshake message; a bad one closes the link as the daemon would. */
  #parse<T>(
    bytes: Uint8Array,
    parse: (value: unknown) => { ok: true; value: T } | { ok: false; error: ProtocolError },
    name: string,
  ): T {
    const decoded = decodeWith(bytes, HANDSHAKE_LIMITS, []);
    const parsed = decoded.ok ? parse(decoded.value) : decoded;
    if (!parsed.ok) {
      const { code, message } = parsed.error;
      throw this.#refuse(`sent a ${name} the daemon rejects: ${code} (${message})`, parsed.error);
    }
    return parsed.value;
  }

  /** Closes the link with `error`, as the daemon would, and returns the problem to throw. */
  #refuse(message: string, error: ProtocolError): HandshakeProblem {
    this.fail(error);
    return new HandshakeProblem(message);
  }

  /** Seals `bodies` as the next frame (PROTOCOL §4.1–§4.2). */
  send(...bodies: FrameBody[]): void {
    this.sendPlaintext(encode(bodies));
  }

  /** Seals any plaintext bytes under the next seq, or `seq` when given (a replay or a skip). */
  sendPlaintext(plaintext: Uint8Array, seq?: number): Uint8Array {
    const frame = this.seal(plaintext, seq);
    this.sendRaw(frame);
    return frame;
  }

  /** A sealed frame, not sent; takes the next seq unless `seq` is given. */
  seal(plaintext: Uint8Array, seq?: number): Uint8Array {
    if (!this.#sendKey) throw new Error('the session is not open');
    const used = seq ?? (this.#sent += 1);
    return sealFrame(this.#sendKey, used, plaintext);
  }

  /**
   * A frame sealed with the mod's own key (mod→daemon) at the next seq: byte for byte what the
   * mod would have sent with this plaintext at that seq, so what a reflection of it looks like.
   */
  sealReflected(plaintext: Uint8Array): Uint8Array {
    if (!this.#reflectKey) throw new Error('the session is not open');
    return sealFrame(this.#reflectKey, (this.#sent += 1), plaintext);
  }

  /** The next seq `seal` would use, taken now (for reordering cases). */
  takeSeq(): number {
    this.#sent += 1;
    return this.#sent;
  }

  sendRaw(bytes: Uint8Array): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(bytes);
  }

  /** PROTOCOL §6.2: sends a request and waits for its `res`, its deadline or the link's end. */
  call(op: string, args: unknown, deadlineMs: number, opId?: string): Promise<CallAnswer> {
    const id = this.#nextId;
    this.#nextId = (this.#nextId % 0xffff_fffe) + 1;
    const started = performance.now();
    if (!this.isOpen)
      return Promise.resolve({ kind: 'lost', why: 'the link is closed', ms: 0, applied: false });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const pending = this.#calls.get(id);
        this.#calls.delete(id);
        this.#late.set(id, op);
        resolve({ kind: 'late', ms: elapsed(started), applied: pending?.applied ?? false });
      }, deadlineMs + TRANSIT_GRACE_MS);
      this.#calls.set(id, { op, started, applied: false, timer, settle: resolve });
      const req: FrameBody = {
        t: 'req',
        id,
        op,
        args: args as Record<string, unknown>,
        deadline_ms: deadlineMs,
      };
      this.send(opId === undefined ? req : { ...req, op_id: opId });
    });
  }

  /** PROTOCOL §5.1: pings with `n` (the next count unless given) and waits for the pong. */
  ping(timeoutMs: number, n?: number): Promise<boolean> {
    const value = n ?? (this.#pings = (this.#pings + 1) >>> 0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pongs.delete(value);
        resolve(false);
      }, timeoutMs);
      this.#pongs.set(value, (answered) => {
        this.#pongs.delete(value);
        clearTimeout(timer);
        resolve(answered);
      });
      this.send({ t: 'ping', n: value });
    });
  }

  /** Resolves once `check` holds for the events received so far, or false after `timeoutMs`. */
  waitEvents(check: (events: readonly ReceivedEvents[]) => boolean, timeoutMs: number): Promise<boolean> {
    if (check(this.events)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#eventWaiters.delete(listener);
        resolve(ok);
      };
      const listener = () => {
        if (check(this.events)) done(true);
        else if (this.#closed) done(false);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#eventWaiters.add(listener);
    });
  }

  /** Closes the link the way the daemon would for `code` (PROTOCOL §5.3). */
  close(code: ProtocolErrorCode = 'shutdown'): void {
    const error = new ProtocolError(code);
    this.#closing = true;
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close(error.closeCode, code);
      setTimeout(() => this.socket.terminate(), 2_000).unref();
    }
  }

  /** The mod broke a rule: remembered for the case's message, and the link closes as §4.6 says. */
  fail(error: ProtocolError): void {
    if (this.#violation) return;
    this.#violation = error;
    this.#closing = true;
    this.socket.close(error.closeCode, error.code);
    setTimeout(() => this.socket.terminate(), 2_000).unref();
    this.#endCalls(violationText(error));
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#violation) return;
    if (!isBinary) return this.fail(new ProtocolError('malformed', 'text message; the link is binary only'));
    const bytes = messageBytes(data);
    if (this.#session) return this.#onSessionFrame(bytes);
    this.#inbox.push(bytes);
    this.#inboxWaiter?.();
  }

  #onSessionFrame(bytes: Uint8Array): void {
    const opened = (this.#session as Session).open(bytes);
    if (!opened.ok) return this.fail(opened.error);
    for (const body of opened.value) this.#onBody(body);
  }

  #onBody(body: FrameBody): void {
    if (body.t === 'ping') {
      this.modPings += 1;
      if (this.isOpen) this.send({ t: 'pong', n: body.n });
    } else if (body.t === 'pong') this.#pongs.get(body.n)?.(true);
    else if (body.t === 'applied') {
      const call = this.#calls.get(body.id);
      if (call) call.applied = true;
    } else if (body.t === 'res') this.#settle(body);
    else if (body.t === 'events') {
      this.events.push({ stream: body.stream, events: body.events, bytes: eventsBytes(body.events) });
      const last = body.events[body.events.length - 1];
      if (this.autoAck && last && this.isOpen)
        this.send({ t: 'events_ack', stream: body.stream, seq: last.seq });
      for (const waiter of this.#eventWaiters) waiter();
    } else this.stray.push(body);
  }

  #settle(res: Extract<FrameBody, { t: 'res' }>): void {
    const call = this.#calls.get(res.id);
    if (!call) return this.#unawaited(res.id);
    this.#calls.delete(res.id);
    this.#answered.set(res.id, call.op);
    clearTimeout(call.timer);
    const ms = elapsed(call.started);
    call.settle(
      res.ok
        ? { kind: 'ok', result: res.result, ms, applied: call.applied }
        : { kind: 'error', error: res.error, ms, applied: call.applied },
    );
  }

  /**
   * A `res` no call waits for: a late or unknown one is dropped, as the daemon drops it; one for
   * a request already answered is remembered, since a mod answers each request once (§6.2).
   */
  #unawaited(id: number): void {
    const late = this.#late.get(id);
    if (late !== undefined) {
      this.#late.delete(id);
      this.#answered.set(id, late);
      return;
    }
    const op = this.#answered.get(id);
    if (op !== undefined) this.answeredTwice.push({ id, op });
  }

  #endCalls(why: string): void {
    for (const [id, call] of this.#calls) {
      clearTimeout(call.timer);
      this.#calls.delete(id);
      call.settle({ kind: 'lost', why, ms: elapsed(call.started), applied: call.applied });
    }
  }

  #onClose(code: number, reason: string): void {
    this.#closed = { code, reason, violation: this.#violation };
    this.closedAt = Date.now();
    this.#endCalls(
      this.#violation
        ? violationText(this.#violation)
        : `the mod closed the link (${code}${reason ? ` ${reason}` : ''}) instead of answering`,
    );
    for (const waiter of this.#closeWaiters.splice(0)) waiter(this.#closed);
    for (const pong of [...this.#pongs.values()]) pong(false);
    for (const waiter of this.#eventWaiters) waiter();
    this.#inboxWaiter?.();
  }
}

/** What the mod got wrong in a handshake, said for its author. */
export class HandshakeProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandshakeProblem';
  }
}

/** What the mod sent that the daemon must reject, said for the mod's author. */
function violationText(error: ProtocolError): string {
  return `the mod sent bytes a daemon must reject (${error.code}, close ${error.closeCode}: ${error.message}; PROTOCOL §4.6, §5.3), so the link was closed`;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
