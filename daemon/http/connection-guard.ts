/**
 * What keeps silent sockets from locking the API out (docs/configuration.md, `[api]`):
 *
 * - a per-address connection cap: one client address (IPv4 address, IPv6 /64, as the edge rate
 *   limit counts) holds at most `maxPerAddress` open connections; one more is answered 429
 *   `rate_limited` and closed. Trusted proxies are exempt: every client behind them shares their
 *   address.
 * - a first-byte timeout: a connection that has sent nothing `firstByteTimeoutMs` after it opened
 *   is closed. (node:http's header timeout starts only at the first byte; after it, that timeout
 *   and the request timeout take over.) Over TLS the handshake timeout does the same job.
 *
 * So a flood of idle sockets from one address costs the daemon `maxPerAddress` sockets at most,
 * and a flood from many addresses lasts `firstByteTimeoutMs` per socket.
 */
import type { Server } from 'node:net';
import type { Socket } from 'node:net';
import { ApiError } from './api-error.ts';
import { edgeSubject } from './client-address.ts';

export interface ConnectionGuardOptions {
  maxPerAddress: number;
  /** Plain HTTP only; 0 turns it off (the TLS listener uses its handshake timeout). */
  firstByteTimeoutMs: number;
  /** Addresses not capped (trusted proxies). */
  exempt(address: string): boolean;
  /** Answers and closes a connection over the cap. */
  refuse(socket: Socket, error: ApiError): void;
}

export interface ConnectionGuard {
  /** Open connections per counted address (for tests and diagnostics). */
  openFrom(address: string): number;
}

export function guardConnections(server: Server, options: ConnectionGuardOptions): ConnectionGuard {
  const open = new Map<string, number>();
  const release = (subject: string) => {
    const left = (open.get(subject) ?? 1) - 1;
    if (left === 0) open.delete(subject);
    else open.set(subject, left);
  };
  // node:http's own connection listener, added with the server, gave this socket its error
  // listener (and a refusal goes through refuseRaw, which adds one of its own).
  // eslint-disable-next-line modgate/socket-error-path
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (!options.exempt(address)) {
      const subject = edgeSubject(address);
      const count = (open.get(subject) ?? 0) + 1;
      if (count > options.maxPerAddress) {
        options.refuse(socket, overCap(options.maxPerAddress));
        return;
      }
      open.set(subject, count);
      socket.once('close', () => release(subject));
    }
    if (options.firstByteTimeoutMs > 0) closeIfSilent(socket, options.firstByteTimeoutMs);
  });
  return { openFrom: (address) => open.get(edgeSubject(address)) ?? 0 };
}

function closeIfSilent(socket: Socket, timeoutMs: number): void {
  const timer = setTimeout(() => {
    if (socket.bytesRead === 0) socket.destroy();
  }, timeoutMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

function overCap(max: number): ApiError {
  return new ApiError('rate_limited', `Too many open connections from this address (at most ${max}).`, {
    headers: { 'retry-after': '1' },
  });
}
