/**
 * The daemon's end of the mod link (PROTOCOL §1): a WebSocket server that admits at most one
 * authenticated mod at a time and sends it ops. A newly authenticated mod supersedes the old one
 * (closed with `superseded`); `call()` correlates each request with its response, enforces the
 * op's deadline and checks the result against the op catalogue.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CodecLimits } from './codec.ts';
import { ProtocolError, type ProtocolErrorCode } from './errors.ts';
import { DaemonHandshake, type Established } from './handshake.ts';
import { keysEqual, type KeyPair } from './keys.ts';
import { LinkAdmission } from './link-admission.ts';
import { LinkCallError, PendingCalls } from './link-calls.ts';
import { EvictionLog, logPeerClose, logRejected } from './link-server-log.ts';
import type { EventRefusal, EventsFrame, ModEvent } from './frames.ts';
import { LinkConnection, type LinkTimers } from './link-connection.ts';
import { silentLogger, type Logger } from './log.ts';
import { OPS, type OpArgs, type OpName, type OpResult } from './ops/index.ts';
import { checkIdentity, checkPositiveInt, resolveLinkSettings } from './options.ts';

export { LinkCallError, type LinkCallErrorKind, type LinkOpError } from './link-calls.ts';

/** The link's timers and connection caps an operator sets (`[mod_link]`, docs/configuration.md). */
export type LinkLimits = Partial<
  Pick<ModLinkServerOptions, keyof LinkTimers | 'maxConnections' | 'maxConnectionsPerAddress'>
>;

export interface ModLinkServerOptions extends Partial<LinkTimers> {
  identity: KeyPair;
  /** The mod keys this daemon trusts; called on each handshake, so a reload applies at once. */
  trustedModKeys: () => readonly Uint8Array[];
  limits?: Partial<CodecLimits>;
  /** ws `maxPayload`: longer messages are refused by ws itself with close code 1009 (§2.2). */
  maxPayload?: number;
  /**
   * Most unauthenticated connections (PROTOCOL §5.2), counted from TCP accept; past it the oldest
   * pending one of the busiest address is closed with `too_many_connections` to make room.
   */
  maxConnections?: number;
  /** Most unauthenticated connections from one address; past it that address's oldest is closed. */
  maxConnectionsPerAddress?: number;
  /** What counts as one address for the cap above (default: the remote address as is). */
  addressKey?: (remote: string) => string;
  /** Protocol versions offered in negotiation (PROTOCOL §7); tests narrow it. */
  versions?: readonly number[];
  /**
   * Announce in `ready` that game events are stored (PROTOCOL §9.1). Whoever sets it listens for
   * `events` and acknowledges each batch once it is durable. Without it, an `events` body closes
   * the link with `unexpected_frame`.
   */
  acceptEvents?: boolean;
  log?: Logger;
}

/** A batch of game events from the connected mod (PROTOCOL §9.2) and how to acknowledge it (§9.3). */
export interface ModEventBatch {
  stream: string;
  events: ModEvent[];
  /**
   * Sends `events_ack` on the link the batch came from, if it is still open, listing the events
   * that were refused rather than stored (§9.5).
   */
  ack(seq: number, refused?: readonly EventRefusal[]): void;
  /**
   * The events could not be stored: closes the link the batch came from with `internal_error`,
   * so the mod redials and sends again everything unacknowledged (§9.3). A later ack on the same
   * link would otherwise cover the events that were lost.
   */
  abort(): void;
}

export interface ModPeer {
  modVersion: string;
  protocolVersion: number;
  connectedAt: Date;
  /** The mod's Ed25519 public key, as trusted. */
  publicKey: Uint8Array;
}

export interface CallOptions {
  /** Overrides the op's catalogue deadline. */
  deadlineMs?: number;
  /** Sent as `op_id` so the mod can deduplicate a retried mutation (PROTOCOL §6.4). */
  opId?: string;
}

interface ServerEvents {
  connect: [peer: ModPeer];
  disconnect: [code: number, reason: string];
  /** Game events from the connected mod (PROTOCOL §9.2). */
  events: [batch: ModEventBatch];
  /** A connection was rejected; emitted only when someone listens (otherwise logged). */
  error: [error: ProtocolError];
}

interface ActiveLink {
  connection: LinkConnection;
  calls: PendingCalls;
  peer: ModPeer;
}

export const DEFAULT_MAX_CONNECTIONS = 64;
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 8;
/** The longest deadline a timer can hold (2^31 − 1 ms, about 24.8 days); it also fits the u32 `deadline_ms`. */
export const MAX_DEADLINE_MS = 2_147_483_647;

export class ModLinkServer extends EventEmitter<ServerEvents> {
  readonly #log: Logger;
  readonly #limits: CodecLimits;
  readonly #timers: LinkTimers;
  readonly #maxPayload: number;
  readonly #admission: LinkAdmission;
  #wss: WebSocketServer | null = null;
  #http: Server | null = null;
  readonly #handshaking = new Set<LinkConnection>();
  readonly #links = new WeakMap<Socket, LinkConnection>();
  readonly #evictions: EvictionLog;
  #active: ActiveLink | null = null;
  #closing = false;
  readonly #options: ModLinkServerOptions;

  constructor(options: ModLinkServerOptions) {
    super();
    this.#options = options;
    checkIdentity(options.identity, 'identity');
    if (typeof options.trustedModKeys !== 'function')
      throw new TypeError('trustedModKeys must be a function');
    this.#log = options.log ?? silentLogger;
    ({
      limits: this.#limits,
      timers: this.#timers,
      maxPayload: this.#maxPayload,
    } = resolveLinkSettings(options));
    this.#evictions = new EvictionLog(this.#log);
    this.#admission = new LinkAdmission({
      maxPending: checkPositiveInt(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, 'maxConnections'),
      maxPendingPerAddress: checkPositiveInt(
        options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
        'maxConnectionsPerAddress',
      ),
      deadlineMs: this.#timers.handshakeTimeoutMs,
      addressKey: options.addressKey ?? ((remote) => remote),
      end: (socket, why) => this.#endPending(socket, why),
    });
  }

  /** Connections accepted but not yet authenticated (PROTOCOL §5.2). */
  get pendingConnections(): number {
    return this.#admission.pending;
  }

  get peer(): ModPeer | null {
    return this.#active ? { ...this.#active.peer } : null;
  }

  /**
   * Ends the authenticated link when its mod key is no longer among `trustedModKeys()`
   * (PROTOCOL §5.3 `unknown_identity`): removing a key from the trusted set reaches the link that
   * key already holds, not only the next handshake. The daemon calls this whenever the set may
   * have changed. True when a link was closed.
   */
  revokeUntrusted(): boolean {
    const link = this.#active;
    if (!link) return false;
    const trusted = this.#options.trustedModKeys().some((key) => keysEqual(key, link.peer.publicKey));
    if (trusted) return false;
    this.#dropActive(new ProtocolError('unknown_identity').closeCode, 'unknown_identity');
    link.connection.close('unknown_identity');
    return true;
  }

  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    if (this.#wss) throw new Error('already listening');
    // Our own HTTP server, so every TCP connection is admitted (and timed) before its first byte.
    const http = createServer((_request, response) => {
      response.writeHead(426, { connection: 'close', upgrade: 'websocket' }).end();
    });
    // node:http's own connection listener, added with the server, gave the socket its error
    // listener; ws adds one when it takes the socket for the upgrade.
    // eslint-disable-next-line modgate/socket-error-path
    http.on('connection', (socket: Socket) => this.#admission.admit(socket));
    const wss = new WebSocketServer({
      server: http,
      maxPayload: this.#maxPayload,
      perMessageDeflate: false,
      handleProtocols: () => false, // PROTOCOL §1: no subprotocol
    });
    this.#http = http;
    this.#wss = wss;
    // ws re-emits the HTTP server's errors; while listening, the promise below reports them.
    let bound = false;
    wss.on('error', (error) => {
      if (bound) this.#log.error('mod link server error', { error: error.message });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
    bound = true;
    wss.on('connection', (socket, request) => this.#accept(socket, request));
    const address = http.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  /** Closes every link with `code` (default `shutdown`) and stops listening. */
  async close(code: ProtocolErrorCode = 'shutdown'): Promise<void> {
    this.#closing = true;
    const connections = [...this.#handshaking];
    if (this.#active) connections.push(this.#active.connection);
    const closed = connections.map((c) => new Promise<void>((resolve) => c.once('close', () => resolve())));
    for (const connection of connections) connection.close(code);
    if (this.#active) this.#dropActive(new ProtocolError(code).closeCode, code);
    await Promise.all(closed);
    const wss = this.#wss;
    const http = this.#http;
    this.#wss = null;
    this.#http = null;
    this.#admission.clear();
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
    if (http) {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections(); // sockets that never finished the upgrade
      await stopped;
    }
  }

  /** Sends op N to the connected mod and resolves with its checked result (PROTOCOL §6.2). */
  call<N extends OpName>(op: N, args: OpArgs<N>, opts: CallOptions = {}): Promise<OpResult<N>> {
    const requested = opts.deadlineMs ?? OPS[op].deadlineMs;
    if (!(requested > 0 && requested <= MAX_DEADLINE_MS)) {
      return Promise.reject(
        new RangeError(`deadlineMs must be in (0, ${MAX_DEADLINE_MS}], got ${requested}`),
      );
    }
    const link = this.#active;
    if (!link || link.connection.state !== 'open') {
      return Promise.reject(new LinkCallError('not_connected', op, 'no mod is connected'));
    }
    const deadlineMs = Math.ceil(requested);
    return new Promise<OpResult<N>>((resolve, reject) => {
      const id = link.calls.add(op, deadlineMs, resolve as (value: unknown) => void, reject);
      try {
        link.connection.send({
          t: 'req',
          id,
          op,
          args: args as Record<string, unknown>,
          deadline_ms: deadlineMs,
          ...(opts.opId === undefined ? {} : { op_id: opts.opId }),
        });
      } catch (error) {
        link.calls.remove(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  #accept(socket: WebSocket, request: IncomingMessage): void {
    const remote = request.socket.remoteAddress ?? 'unknown';
    if (this.#closing) return socket.close(new ProtocolError('shutdown').closeCode, 'shutdown');
    const handshake = new DaemonHandshake({
      identity: this.#options.identity,
      trustedModKeys: this.#options.trustedModKeys,
      ...(this.#options.versions ? { versions: this.#options.versions } : {}),
    });
    const connection = new LinkConnection({
      socket,
      handshake,
      limits: this.#limits,
      maxPayload: this.#maxPayload,
      log: this.#log,
      ...(this.#options.acceptEvents ? { ready: { t: 'ready', events: true } as const } : {}),
      ...this.#timers,
    });
    this.#handshaking.add(connection);
    this.#links.set(request.socket, connection);
    connection.on('error', (error) => {
      this.#report(error, remote);
      // The link is dead from here on: fail its calls now, not when the socket finishes closing.
      if (this.#active?.connection === connection) this.#dropActive(error.closeCode, error.closeReason);
    });
    connection.on('open', (established) => {
      this.#handshaking.delete(connection);
      this.#admission.release(request.socket);
      this.#adopt(connection, established);
    });
    connection.on('frame', (frame) => {
      if (this.#active?.connection !== connection) return;
      if (frame.t === 'res') this.#active.calls.settle(frame);
      else if (frame.t === 'applied') this.#active.calls.markApplied(frame.id);
      else if (frame.t === 'events') this.#onEvents(connection, frame);
    });
    connection.on('close', (code, reason, error) => {
      const wasPending = this.#handshaking.delete(connection);
      if (this.#active?.connection === connection) this.#dropActive(code, reason);
      else if (wasPending && !error) logPeerClose(this.#log, code, reason, remote);
    });
  }

  /**
   * PROTOCOL §9.2: events reach whoever stores them. Without `acceptEvents` none arrives here: the
   * session refuses them as `unexpected_frame` (§9.1).
   */
  #onEvents(connection: LinkConnection, frame: EventsFrame): void {
    const ack = (seq: number, refused: readonly EventRefusal[] = []) => {
      if (connection.state !== 'open') return;
      const body = { t: 'events_ack', stream: frame.stream, seq } as const;
      connection.send(refused.length > 0 ? { ...body, refused: [...refused] } : body);
    };
    const abort = () => connection.close('internal_error');
    this.emit('events', { stream: frame.stream, events: frame.events, ack, abort });
  }

  /** PROTOCOL §5.2: the newest authenticated mod wins; the old one is closed `superseded`. */
  #adopt(connection: LinkConnection, established: Established): void {
    const previous = this.#active;
    if (previous) {
      this.#dropActive(new ProtocolError('superseded').closeCode, 'superseded');
      previous.connection.close('superseded');
    }
    const peer: ModPeer = {
      modVersion: established.modVersion,
      protocolVersion: established.version,
      connectedAt: new Date(),
      publicKey: established.peerId,
    };
    this.#active = { connection, calls: new PendingCalls(this.#log), peer };
    this.#log.info('mod connected', {
      event: 'mod_connected',
      mod_version: peer.modVersion,
      protocol_version: peer.protocolVersion,
    });
    this.emit('connect', { ...peer });
  }

  #dropActive(code: number, reason: string): void {
    const link = this.#active;
    if (!link) return;
    this.#active = null;
    link.calls.rejectAll(reason || `close ${code}`);
    this.#log.warn('mod disconnected', { event: 'mod_disconnected', close_code: code, reason });
    this.emit('disconnect', code, reason);
  }

  /** Ends an unauthenticated connection for the admission (PROTOCOL §5.2): timed out, or evicted. */
  #endPending(socket: Socket, why: 'timeout' | 'evicted'): void {
    const link = this.#links.get(socket);
    if (why === 'evicted') this.#evictions.count(this.#admission.pending);
    if (!link) {
      this.#log.debug('mod link connection closed before the WebSocket upgrade', {
        remote: socket.remoteAddress,
        reason: why,
      });
      socket.destroy();
      return;
    }
    link.fail(
      why === 'timeout'
        ? new ProtocolError('handshake_timeout', `no session within ${this.#timers.handshakeTimeoutMs} ms`)
        : new ProtocolError('too_many_connections', 'closed to make room for a newer connection'),
    );
  }

  #report(error: ProtocolError, remote: string): void {
    logRejected(this.#log, error, remote);
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}
