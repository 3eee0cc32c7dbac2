/**
 * What keeps silent sockets from locking the API out (docs/configuration.md, `[api]`):
 *
 * - a per-address connection cap: one client address (IPv4 address, IPv6 /64 or the configured
 *   prefix, as the edge rate limit counts) holds at most `maxPerAddress` open connections; one more is answered 429
 *   `rate_limited` and closed. Trusted proxies are exempt: every client behind them shares their
 *   address.
 * - a global cap with fair admission: at most `maxConnections` connections are held in all
 *   (trusted proxies' included). When full, a newcomer takes the place of a silent or idle
 *   connection of the address holding the most, else of one still sending its request head
 *   (admission-policy.ts); only when there is none is it answered 429 and closed. (node:http's
 *   own `maxConnections` would drop it without a word, first come first served, so one
 *   reconnecting address could hold every slot.)
 * - a first-byte timeout: a connection that has sent nothing `firstByteTimeoutMs` after it opened
 *   is closed. (node:http's header timeout starts only at the first byte; after it, that timeout
 *   and the request timeout take over.) Over TLS the handshake timeout does the same job.
 *
 * So a flood of idle or stalled sockets from one address costs the daemon `maxPerAddress`
 * sockets at most and never keeps another address out (nor does one from a trusted proxy), and
 * a flood from many addresses lasts `firstByteTimeoutMs` (or the header timeout) per socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { type Admitted, chooseVictim, type ConnectionActivity } from './admission-policy.ts';
import { ApiError } from './api-error.ts';
import { type AddressGrouping, edgeSubject } from './client-address.ts';

export interface ConnectionGuardOptions {
  /** Connections held at once, from every address. */
  maxConnections: number;
  maxPerAddress: number;
  /** Plain HTTP only; 0 turns it off (the TLS listener uses its handshake timeout). */
  firstByteTimeoutMs: number;
  /** What a client address counts as (IPv6: a /64 unless given). */
  addressGroup?: AddressGrouping;
  /** Addresses not capped per address (trusted proxies); they still count toward the total. */
  exempt(address: string): boolean;
  /** Answers and closes a connection over a cap. */
  refuse(socket: Socket, error: ApiError): void;
}

export interface ConnectionGuard {
  /** Open connections per counted address (for tests and diagnostics). */
  openFrom(address: string): number;
  /** Open connections in all. */
  open(): number;
}

/** One admitted connection: what the policy needs to know about it. */
class Connection implements Admitted {
  inFlight = 0;
  served = 0;
  /** bytesRead when the last response ended: more since means a next request has begun. */
  readAtRest = 0;
  released = false;

  constructor(
    readonly socket: Socket,
    readonly subject: string,
  ) {}

  activity(): ConnectionActivity {
    if (this.socket.bytesRead === 0) return 'silent';
    if (this.inFlight > 0) return 'busy';
    // node:http emits 'request' as soon as a head is complete (its body may follow), so bytes
    // with no request since the last response, or since the connection opened, are a head
    // still arriving: nothing has reached the API yet.
    return this.served > 0 && this.socket.bytesRead === this.readAtRest ? 'idle' : 'head';
  }
}

export function guardConnections(server: Server, options: ConnectionGuardOptions): ConnectionGuard {
  const holders = new Map<string, Set<Connection>>();
  const subjectOf = options.addressGroup ?? edgeSubject;
  /** The sockets requests arrive on: the TCP socket, or over TLS the TLS socket around it. */
  const bySocket = new WeakMap<object, Connection>();
  /** By remote address and port, to find a TLS socket's connection on its first request. */
  const byPeer = new Map<string, Connection>();
  let total = 0;
  const release = (connection: Connection) => {
    if (connection.released) return;
    connection.released = true;
    total -= 1;
    byPeer.delete(peerOf(connection.socket));
    const held = holders.get(connection.subject);
    held?.delete(connection);
    if (held?.size === 0) holders.delete(connection.subject);
  };
  // node:http's own connection listener, added with the server, gave this socket its error
  // listener (and a refusal goes through refuseRaw, which adds one of its own).
  // eslint-disable-next-line modgate/socket-error-path
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const subject = subjectOf(address);
    const held = holders.get(subject)?.size ?? 0;
    if (!options.exempt(address) && held >= options.maxPerAddress) {
      return options.refuse(socket, overAddressCap(options.maxPerAddress));
    }
    if (total >= options.maxConnections) {
      const victim = chooseVictim(holders, subject);
      if (!victim) return options.refuse(socket, full());
      release(victim);
      victim.socket.destroy();
    }
    const connection = new Connection(socket, subject);
    total += 1;
    bySocket.set(socket, connection);
    byPeer.set(peerOf(socket), connection);
    if (!holders.has(subject)) holders.set(subject, new Set());
    holders.get(subject)?.add(connection);
    socket.once('close', () => release(connection));
    if (options.firstByteTimeoutMs > 0) closeIfSilent(socket, options.firstByteTimeoutMs);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let connection = bySocket.get(req.socket);
    if (!connection) {
      connection = byPeer.get(peerOf(req.socket));
      if (!connection) return;
      bySocket.set(req.socket, connection);
    }
    connection.inFlight += 1;
    res.once('close', () => {
      connection.inFlight -= 1;
      connection.served += 1;
      connection.readAtRest = connection.socket.bytesRead;
    });
  });
  return { openFrom: (address) => holders.get(subjectOf(address))?.size ?? 0, open: () => total };
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

function closeIfSilent(socket: Socket, timeoutMs: number): void {
  const timer = setTimeout(() => {
    if (socket.bytesRead === 0) socket.destroy();
  }, timeoutMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

function overAddressCap(max: number): ApiError {
  return new ApiError('rate_limited', `Too many open connections from this address (at most ${max}).`, {
    headers: { 'retry-after': '1' },
  });
}

/**
 * Every connection is busy serving someone: a 429 (back off and retry), not a 503, which the
 * API keeps for a game server that is not available.
 */
function full(): ApiError {
  return new ApiError(
    'rate_limited',
    'The daemon is serving as many connections as it holds; retry shortly.',
    {
      headers: { 'retry-after': '1' },
    },
  );
}
