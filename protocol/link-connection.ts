/**
 * One WebSocket bound to the protocol state machines (PROTOCOL §3–§5), shared by the daemon's
 * link server and the mod bridge. It feeds each message to the handshake, then to the session,
 * and hands on the bodies of each frame in order; queues outgoing bodies so that one turn's
 * bodies share a frame (§4.2, `frame-sender.ts`); answers pings; runs the handshake deadline and
 * the heartbeat; and closes the socket once, with the close code of the first `ProtocolError`.
 * The machines decide; this class only wires.
 */
import { EventEmitter } from 'node:events';
import type { RawData, WebSocket } from 'ws';
import type { CodecLimits } from './codec.ts';
import { PROTOCOL_ERRORS, ProtocolError, type ProtocolErrorCode } from './errors.ts';
import { batchBounds } from './frame-batch.ts';
import { FrameSender } from './frame-sender.ts';
import type { FrameBody, ReadyFrame, Role } from './frames.ts';
import type { DaemonHandshake, Established, ModHandshake } from './handshake.ts';
import type { Logger } from './log.ts';
import { Session } from './session.ts';

export interface LinkTimers {
  /** From socket open until the session is open (PROTOCOL §3.7). */
  handshakeTimeoutMs: number;
  /** How often this side pings (PROTOCOL §5.1). */
  heartbeatMs: number;
  /** Longest silence, in authenticated frames, before `heartbeat_timeout` (PROTOCOL §5.1). */
  heartbeatTimeoutMs: number;
}

export const DEFAULT_TIMERS: Readonly<LinkTimers> = Object.freeze({
  handshakeTimeoutMs: 5_000,
  heartbeatMs: 10_000,
  heartbeatTimeoutMs: 30_000,
});

/** ws `maxPayload` on both ends: a longer message is refused by ws with close code 1009 (PROTOCOL §2.2). */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** How long a closing socket may take to finish the close handshake before it is cut. */
const CLOSE_GRACE_MS = 2_000;
/** The daemon's `ready` unless told otherwise: no game events on this session (PROTOCOL §9.1). */
const DEFAULT_READY: ReadyFrame = Object.freeze({ t: 'ready' });

export type LinkState = 'connecting' | 'handshake' | 'await_ready' | 'open' | 'closing' | 'closed';

export interface LinkConnectionOptions extends LinkTimers {
  socket: WebSocket;
  handshake: DaemonHandshake | ModHandshake;
  limits: CodecLimits;
  /** The largest WebSocket message the peer accepts (its ws `maxPayload`, assumed equal to ours). */
  maxPayload?: number;
  /** The daemon's `ready` body (PROTOCOL §4.5, §9.1); `{t:'ready'}` by default. */
  ready?: ReadyFrame;
  log: Logger;
}

interface LinkEvents {
  open: [established: Established];
  frame: [frame: FrameBody];
  /** The first local rejection, reported once, before the socket closes. */
  error: [error: ProtocolError];
  close: [code: number, reason: string, error: ProtocolError | null];
}

export class LinkConnection extends EventEmitter<LinkEvents> {
  readonly role: Role;
  #stateValue: LinkState = 'connecting';
  #session: Session | null = null;
  #sender: FrameSender | null = null;
  #established: Established | null = null;
  #reported: ProtocolError | null = null;
  #handshakeTimer: NodeJS.Timeout | null = null;
  #pingTimer: NodeJS.Timeout | null = null;
  #silenceTimer: NodeJS.Timeout | null = null;
  #graceTimer: NodeJS.Timeout | null = null;
  #pings = 0;
  #wasOpened = false;
  #oversized = false;
  #readyBody: ReadyFrame | null = null;
  readonly #options: LinkConnectionOptions;

  constructor(options: LinkConnectionOptions) {
    super();
    this.#options = options;
    const { socket, handshake } = options;
    this.role = 'start' in handshake ? 'mod' : 'daemon';
    socket.binaryType = 'nodebuffer';
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on('close', (code, reason) => this.#onClose(code, reason.toString('utf8')));
    socket.on('error', (error) => this.#onSocketError(error));
    if (socket.readyState === socket.OPEN) this.#begin();
    else socket.once('open', () => this.#begin());
  }

  get state(): LinkState {
    return this.#stateValue;
  }

  get info(): Established | null {
    return this.#established;
  }

  /** The `ready` body the daemon sent (mod side) or will send (daemon side), once open. */
  get ready(): ReadyFrame | null {
    return this.#readyBody;
  }

  /** True once the session has opened, even after it closed. */
  get hasOpened(): boolean {
    return this.#wasOpened;
  }

  get socket(): WebSocket {
    return this.#options.socket;
  }

  /**
   * Queues one frame body for this turn's frame (PROTOCOL §4.2). Throws at once, queuing
   * nothing, for a body that can never be sent: TypeError (no plain msgpack form) or RangeError
   * (larger than a frame may be).
   */
  send(body: FrameBody): void {
    if (this.#stateValue !== 'open' || !this.#sender)
      throw new Error(`link is ${this.#stateValue}, not open`);
    this.#sender.send(body);
  }

  /**
   * Closes gracefully with a deliberate code (PROTOCOL §5.3), e.g. `shutdown` or `superseded`.
   * The bodies already queued go out first, as they would have had they been written at once.
   */
  close(code: ProtocolErrorCode = 'shutdown'): void {
    if (this.#stateValue === 'open') {
      try {
        this.#sender?.flush();
      } catch (cause) {
        this.#options.log.error('mod link fault while closing', { error: describe(cause) });
      }
    }
    this.#closeSocket(PROTOCOL_ERRORS[code].closeCode, code);
  }

  /** Cuts the TCP connection without a close frame. */
  terminate(): void {
    this.#options.socket.terminate();
  }

  /** Rejects the link: reports `error` once, then closes with its close code (PROTOCOL §5.3). */
  fail(error: ProtocolError): void {
    if (this.#reported || this.#stateValue === 'closing' || this.#stateValue === 'closed') return;
    this.#reported = error;
    this.#session?.fail(error);
    this.#sender?.discard(); // nothing more is sent on a rejected link (PROTOCOL §4.6)
    this.#options.log.debug('mod link rejected', {
      code: error.code,
      closeCode: error.closeCode,
      message: error.message,
    });
    if (this.listenerCount('error') > 0) this.emit('error', error);
    this.#closeSocket(error.closeCode, error.closeReason);
  }

  #begin(): void {
    this.#stateValue = 'handshake';
    const { handshake, handshakeTimeoutMs } = this.#options;
    this.#handshakeTimer = setTimeout(() => {
      this.fail(new ProtocolError('handshake_timeout', `no session within ${handshakeTimeoutMs} ms`));
    }, handshakeTimeoutMs).unref();
    if ('start' in handshake) this.#options.socket.send(handshake.start()); // PROTOCOL §3.2
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#stateValue === 'closing' || this.#stateValue === 'closed') return;
    if (!isBinary) return this.fail(new ProtocolError('malformed', 'text message; the link is binary only'));
    const bytes = messageBytes(data);
    try {
      if (this.#session) this.#onSessionFrame(this.#session, bytes);
      else this.#onHandshakeMessage(bytes);
    } catch (cause) {
      this.#fault(cause);
    }
  }

  /** A local fault, never the peer's doing: logged whole, and the link closes with internal_error. */
  #fault(cause: unknown): void {
    this.#options.log.error('mod link fault', { error: describe(cause) });
    this.fail(new ProtocolError('internal_error'));
  }

  #onHandshakeMessage(bytes: Uint8Array): void {
    const step = this.#options.handshake.receive(bytes);
    if (step.reply) this.#options.socket.send(step.reply);
    if (step.error) return this.fail(step.error);
    if (!step.established) return;
    this.#established = step.established;
    const ready = this.role === 'daemon' ? { ready: this.#options.ready ?? DEFAULT_READY } : {};
    const session = new Session(step.established, this.#options.limits, ready);
    this.#session = session;
    const { socket, limits, maxPayload = DEFAULT_MAX_PAYLOAD } = this.#options;
    this.#sender = new FrameSender({
      session,
      bounds: batchBounds(limits, maxPayload),
      write: (frame) => socket.send(frame),
      onFault: (cause) => this.#fault(cause),
    });
    if (this.role === 'mod') {
      this.#stateValue = 'await_ready'; // PROTOCOL §4.5: the daemon speaks first
      return;
    }
    this.#opened();
  }

  /** One frame, then its bodies in order (PROTOCOL §4.2 rule 3), until one of them ends the link. */
  #onSessionFrame(session: Session, bytes: Uint8Array): void {
    const opened = session.open(bytes);
    if (!opened.ok) return this.fail(opened.error);
    this.#silenceTimer?.refresh(); // PROTOCOL §5.1: any authenticated frame proves liveness
    for (const body of opened.value) {
      if (this.#stateValue === 'closing' || this.#stateValue === 'closed') return;
      if (body.t === 'ready') {
        this.#readyBody = body;
        this.#opened();
      } else if (body.t === 'ping') this.send({ t: 'pong', n: body.n });
      else if (body.t !== 'pong') this.emit('frame', body);
    }
  }

  /** The session is open: the daemon queues `ready` before anyone can queue a request (§4.5). */
  #opened(): void {
    this.#stateValue = 'open';
    this.#wasOpened = true;
    this.#handshakeTimer = cleared(this.#handshakeTimer);
    if (this.role === 'daemon') {
      this.#readyBody = this.#options.ready ?? DEFAULT_READY;
      this.send(this.#readyBody);
    }
    const { heartbeatMs, heartbeatTimeoutMs } = this.#options;
    this.#pingTimer = setInterval(() => this.#ping(), heartbeatMs).unref();
    this.#silenceTimer = setTimeout(() => {
      this.fail(
        new ProtocolError('heartbeat_timeout', `no authenticated frame for ${heartbeatTimeoutMs} ms`),
      );
    }, heartbeatTimeoutMs).unref();
    this.emit('open', this.#established as Established);
  }

  #ping(): void {
    this.#pings = (this.#pings + 1) >>> 0;
    this.send({ t: 'ping', n: this.#pings });
  }

  #closeSocket(code: number, reason: string): void {
    if (this.#stateValue === 'closing' || this.#stateValue === 'closed') return;
    this.#stateValue = 'closing';
    this.#clearTimers();
    const { socket } = this.#options;
    if (socket.readyState === socket.CONNECTING) return socket.terminate();
    socket.close(code, reason);
    this.#graceTimer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  /**
   * ws reports a message over `maxPayload` as a socket error and closes with 1009 itself
   * (PROTOCOL §2.2); the close is then reported as 1009, whatever the peer answered.
   */
  #onSocketError(error: Error): void {
    if ((error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      this.#oversized = true;
      this.#options.log.warn('mod link message over the size limit', {
        event: 'mod_link_message_too_large',
        close_code: 1009,
        max_payload: this.#options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
      });
      return;
    }
    this.#options.log.debug('mod link socket error', { error: error.message });
  }

  #onClose(code: number, reason: string): void {
    this.#stateValue = 'closed';
    this.#sender?.discard();
    this.#clearTimers();
    this.#graceTimer = cleared(this.#graceTimer);
    if (this.#oversized) this.emit('close', 1009, 'message_too_large', this.#reported);
    else this.emit('close', code, reason, this.#reported);
  }

  #clearTimers(): void {
    this.#handshakeTimer = cleared(this.#handshakeTimer);
    this.#pingTimer = cleared(this.#pingTimer);
    this.#silenceTimer = cleared(this.#silenceTimer);
  }
}

/** One WebSocket message as one buffer, whatever form ws delivered it in. */
export function messageBytes(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

function describe(cause: unknown): string | undefined {
  return cause instanceof Error ? cause.stack : String(cause);
}

/** Stops a timer or interval if there is one; returns the null its field holds from then on. */
function cleared(timer: NodeJS.Timeout | null): null {
  if (timer) clearTimeout(timer);
  return null;
}
