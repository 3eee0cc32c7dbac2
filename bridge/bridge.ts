/**
 * The mod's end of the link, embeddable by a JavaScript mod (the simulator uses it). It dials the
 * daemon, runs the handshake (PROTOCOL §3), dispatches each request to a handler (§6), and after
 * any close redials with full-jitter exponential backoff (§5.4) until `close()` is called.
 */
import { EventEmitter } from 'node:events';
import { WebSocket } from 'ws';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from '../protocol/backoff.ts';
import type { CodecLimits } from '../protocol/codec.ts';
import { PROTOCOL_ERRORS, type ProtocolError } from '../protocol/errors.ts';
import type { ReqFrame, ResFrame } from '../protocol/frames.ts';
import { dispatchRequest, errorRes, RequestContext } from '../protocol/dispatch.ts';
import { EventOutbox, type EventOutboxOptions } from '../protocol/event-outbox.ts';
import { ModHandshake, type Established } from '../protocol/handshake.ts';
import type { KeyPair } from '../protocol/keys.ts';
import { LinkConnection, type LinkTimers } from '../protocol/link-connection.ts';
import { silentLogger, type Logger } from '../protocol/log.ts';
import type { OpHandlers } from '../protocol/ops/index.ts';
import { checkIdentity, checkKey, checkPositiveInt, resolveLinkSettings } from '../protocol/options.ts';

/** PROTOCOL §5.3: closed because a newer mod with the same identity authenticated. */
const SUPERSEDED = PROTOCOL_ERRORS.superseded.closeCode;

export interface ModBridgeOptions extends Partial<LinkTimers> {
  /** The daemon's mod-link address, e.g. `ws://127.0.0.1:7301`. */
  url: string;
  identity: KeyPair;
  /** The daemon key this mod pins (PROTOCOL §3.3). */
  daemonPublicKey: Uint8Array;
  /** The game mod's build, e.g. `2.0.47`. */
  modVersion: string;
  handlers: Partial<OpHandlers>;
  backoff?: Partial<BackoffPolicy>;
  limits?: Partial<CodecLimits>;
  maxPayload?: number;
  versions?: readonly number[];
  log?: Logger;
  /** A uniform random number in [0, 1) for the backoff jitter. */
  random?: () => number;
  /** The game-event buffer (PROTOCOL §9.4): its capacity and stream id. */
  events?: Omit<EventOutboxOptions, 'log'>;
}

export interface BridgeSession {
  protocolVersion: number;
  daemonPublicKey: Uint8Array;
}

interface BridgeEvents {
  connect: [session: BridgeSession];
  disconnect: [code: number, reason: string];
  /** A local rejection of the daemon's bytes; emitted only when someone listens (else logged). */
  error: [error: ProtocolError];
}

export class ModBridge extends EventEmitter<BridgeEvents> {
  readonly #log: Logger;
  readonly #limits: CodecLimits;
  readonly #timers: LinkTimers;
  readonly #backoff: BackoffPolicy;
  readonly #maxPayload: number;
  #connection: LinkConnection | null = null;
  #redialTimer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #closed = false;
  #started = false;
  readonly #inFlight = new Set<RequestContext>();
  /**
   * Game events for the daemon (PROTOCOL §9): `bridge.events.emit(type, data)`. They are buffered
   * until the daemon acknowledges them, across redials; see EventOutbox for the bound.
   */
  readonly events: EventOutbox;
  readonly #options: ModBridgeOptions;

  constructor(options: ModBridgeOptions) {
    super();
    this.#options = options;
    checkIdentity(options.identity, 'identity');
    checkKey(options.daemonPublicKey, 'daemonPublicKey');
    if (typeof options.modVersion !== 'string' || options.modVersion === '') {
      throw new TypeError('modVersion must be a non-empty string');
    }
    new URL(options.url); // throws TypeError for a malformed url, now rather than at dial time
    this.#log = options.log ?? silentLogger;
    this.events = new EventOutbox({ ...options.events, log: this.#log });
    ({
      limits: this.#limits,
      timers: this.#timers,
      maxPayload: this.#maxPayload,
    } = resolveLinkSettings(options));
    this.#backoff = {
      initialMs: checkPositiveInt(
        options.backoff?.initialMs ?? DEFAULT_BACKOFF.initialMs,
        'backoff.initialMs',
      ),
      maxMs: checkPositiveInt(options.backoff?.maxMs ?? DEFAULT_BACKOFF.maxMs, 'backoff.maxMs'),
    };
  }

  /** True while an authenticated session is open. */
  get connected(): boolean {
    return this.#connection?.state === 'open';
  }

  /** Stops redialing and closes the link with `shutdown`; resolves once the socket is closed. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#redialTimer) clearTimeout(this.#redialTimer);
    this.#redialTimer = null;
    const connection = this.#connection;
    if (!connection || connection.state === 'closed') return;
    const done = new Promise<void>((resolve) => connection.once('close', () => resolve()));
    connection.close('shutdown');
    await done;
  }

  /** Fault injection: writes `bytes` as one binary WebSocket message, unencrypted. */
  sendRaw(bytes: Uint8Array): void {
    const socket = this.#connection?.socket;
    if (socket?.readyState === WebSocket.OPEN) socket.send(bytes);
  }

  /** Fault injection: cuts the TCP connection without a close frame; the bridge redials. */
  dropLink(): void {
    this.#connection?.terminate();
  }

  /** Starts dialing; calling it again is a no-op. `startModBridge` calls it for you. */
  start(): this {
    if (!this.#started) {
      this.#started = true;
      this.#dial();
    }
    return this;
  }

  /** Dials once (PROTOCOL §3.2); called by `start()` and by the backoff timer. */
  #dial(): void {
    this.#redialTimer = null;
    if (this.#closed) return;
    const options = this.#options;
    const socket = new WebSocket(options.url, {
      maxPayload: this.#maxPayload,
      perMessageDeflate: false,
      handshakeTimeout: this.#timers.handshakeTimeoutMs,
    });
    const handshake = new ModHandshake({
      identity: options.identity,
      daemonPublicKey: options.daemonPublicKey,
      modVersion: options.modVersion,
      ...(options.versions ? { versions: options.versions } : {}),
    });
    const connection = new LinkConnection({
      socket,
      handshake,
      limits: this.#limits,
      maxPayload: this.#maxPayload,
      log: this.#log,
      ...this.#timers,
    });
    this.#connection = connection;
    connection.on('error', (error) => this.#report(error));
    connection.on('open', (established) => this.#onOpen(connection, established));
    connection.on('frame', (frame) => {
      if (frame.t === 'req') this.#onRequest(connection, frame);
      else if (frame.t === 'events_ack') this.events.ack(frame.stream, frame.seq, frame.refused);
    });
    connection.on('close', (code, reason) => this.#onClose(connection, code, reason));
  }

  #onOpen(connection: LinkConnection, established: Established): void {
    this.#attempt = 0;
    // PROTOCOL §9.1: only a daemon that announced events in `ready` is sent any.
    if (connection.ready?.events) this.events.attach((body) => connection.send(body));
    this.#log.info('connected to the daemon', { protocolVersion: established.version });
    this.emit('connect', { protocolVersion: established.version, daemonPublicKey: established.peerId });
  }

  #onClose(connection: LinkConnection, code: number, reason: string): void {
    const wasOpen = connection.hasOpened;
    if (this.#connection === connection) this.events.detach();
    for (const ctx of this.#inFlight) ctx.abort('the mod link was lost');
    this.#inFlight.clear();
    if (this.#connection === connection) this.#connection = null;
    if (wasOpen) {
      this.#log.info('disconnected from the daemon', { code, reason });
      this.emit('disconnect', code, reason);
    } else {
      this.#log.warn('the link closed before a session opened', { code, reason });
    }
    if (code !== SUPERSEDED) return this.#scheduleRedial();
    // PROTOCOL §5.4: another mod holds this identity; redialing at once would make the two
    // supersede each other in a tight loop. Wait the longest backoff, and say why.
    this.#log.warn('superseded by another mod with this identity; one identity per game server', {
      event: 'mod_superseded',
      retry_in_ms: this.#backoff.maxMs,
    });
    this.#scheduleRedial(this.#backoff.maxMs);
  }

  /** Full jitter (PROTOCOL §5.4): uniform in [0, min(maxMs, initialMs · 2^attempt)). */
  #scheduleRedial(fixedDelayMs?: number): void {
    if (this.#closed || this.#redialTimer) return;
    const delay = fixedDelayMs ?? backoffDelay(this.#attempt, this.#backoff, this.#options.random);
    this.#attempt += 1;
    this.#redialTimer = setTimeout(() => this.#dial(), delay);
  }

  #onRequest(connection: LinkConnection, req: ReqFrame): void {
    const ctx = new RequestContext(req.op_id, req.deadline_ms, () => {
      if (connection.state === 'open') connection.send({ t: 'applied', id: req.id });
    });
    this.#inFlight.add(ctx);
    void dispatchRequest(req, this.#options.handlers, ctx, this.#log).then((res) => {
      ctx.dispose();
      this.#inFlight.delete(ctx);
      this.#respond(connection, req, res);
    });
  }

  /** Answers on the link the request came from; a result that cannot be sent becomes `internal`. */
  #respond(connection: LinkConnection, req: ReqFrame, res: ResFrame): void {
    if (connection.state !== 'open') return; // the daemon already failed this call as link_lost
    try {
      connection.send(res);
    } catch (error) {
      this.#log.error('op result could not be sent', { op: req.op, error: (error as Error).message });
      try {
        connection.send(errorRes(req.id, 'internal', 'the mod produced a result it could not send'));
      } catch (fault) {
        this.#log.error('op error could not be sent', { op: req.op, error: (fault as Error).message });
      }
    }
  }

  #report(error: ProtocolError): void {
    this.#log.warn('mod link rejected the daemon', { code: error.code, message: error.message });
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}

/** Starts a bridge: it dials at once and keeps the link up until `close()`. */
export function startModBridge(options: ModBridgeOptions): ModBridge {
  return new ModBridge(options).start();
}
