/**
 * Admission of unauthenticated connections on the daemon's mod-link port (PROTOCOL §5.2). Every
 * TCP connection is counted from the moment it is accepted, before a byte arrives, until its
 * mod authenticates; until then it has the handshake deadline (§3.7) to do so, whether it never
 * sends a byte, never finishes the WebSocket upgrade or stalls inside the handshake.
 *
 * The pending connections are capped twice: per address and in total. A newcomer is never
 * refused for lack of room: the oldest pending connection of its own address makes way when that
 * address is at its cap, else the oldest of the address holding the most. So a flood of silent
 * sockets, from any number of addresses, cannot keep the real mod out: its connection always
 * gets a slot and keeps it for as long as its handshake takes, unless the flood opens a full
 * cap's worth of new connections within that time.
 */
import type { Socket } from 'node:net';

export interface AdmissionOptions {
  /** Most unauthenticated connections in total. */
  maxPending: number;
  /** Most unauthenticated connections from one address (see `addressKey`). */
  maxPendingPerAddress: number;
  /** From accept to authenticated (PROTOCOL §3.7). */
  deadlineMs: number;
  /** What counts as one address; the daemon counts an IPv6 /64 as one. */
  addressKey: (remote: string) => string;
  /** Ends a pending connection: `timeout` past the deadline, `evicted` to make room. */
  end: (socket: Socket, why: 'timeout' | 'evicted') => void;
}

interface Entry {
  socket: Socket;
  address: string;
  timer: NodeJS.Timeout;
}

export class LinkAdmission {
  readonly #byAddress = new Map<string, Entry[]>();
  readonly #bySocket = new Map<Socket, Entry>();
  readonly #options: AdmissionOptions;

  constructor(options: AdmissionOptions) {
    this.#options = options;
  }

  /** Unauthenticated connections open now. */
  get pending(): number {
    return this.#bySocket.size;
  }

  /** Counts a just-accepted connection, making room first if a cap is reached. */
  admit(socket: Socket): void {
    const address = this.#options.addressKey(socket.remoteAddress ?? 'unknown');
    const mine = this.#byAddress.get(address) ?? [];
    if (mine.length >= this.#options.maxPendingPerAddress) this.#evict(mine[0] as Entry);
    else if (this.#bySocket.size >= this.#options.maxPending) this.#evict(this.#oldestOfBusiest());
    const timer = setTimeout(() => this.#expire(socket), this.#options.deadlineMs).unref();
    const entry: Entry = { socket, address, timer };
    this.#bySocket.set(socket, entry);
    this.#byAddress.set(address, [...(this.#byAddress.get(address) ?? []), entry]);
    socket.once('close', () => this.release(socket));
  }

  /** The connection authenticated (or closed): it no longer counts and has no deadline. */
  release(socket: Socket): void {
    const entry = this.#bySocket.get(socket);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#bySocket.delete(socket);
    const rest = (this.#byAddress.get(entry.address) ?? []).filter((other) => other !== entry);
    if (rest.length === 0) this.#byAddress.delete(entry.address);
    else this.#byAddress.set(entry.address, rest);
  }

  /** Forgets every connection (the server is closing; it ends them itself). */
  clear(): void {
    for (const socket of [...this.#bySocket.keys()]) this.release(socket);
  }

  #expire(socket: Socket): void {
    if (!this.#bySocket.has(socket)) return;
    this.release(socket);
    this.#options.end(socket, 'timeout');
  }

  #evict(entry: Entry): void {
    this.release(entry.socket);
    this.#options.end(entry.socket, 'evicted');
  }

  #oldestOfBusiest(): Entry {
    let busiest: Entry[] = [];
    for (const entries of this.#byAddress.values()) if (entries.length > busiest.length) busiest = entries;
    return busiest[0] as Entry;
  }
}
