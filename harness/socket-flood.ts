/**
 * An attacker holding connections open: `count` sockets from one local address that never send
 * a byte (or send the start of a request head and stall) and reconnect as soon as the server
 * closes them (refused, evicted or timed out), and a polite client that asks one request per
 * connection meanwhile. Used by the fair-admission test and by bench/admission-flood.ts.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface Flood {
  /** Connections opened so far (reconnections included). */
  opened(): number;
  /** Sockets open now. */
  open(): number;
  stop(): void;
}

export interface FloodOptions {
  /** Wait before dialling again once a socket has closed. */
  reconnectMs?: number;
  /**
   * Keep a socket the server has ended (its 429, or an eviction) open on this side this long
   * before closing it, as a peer that never closes would; 0 closes it at once.
   */
  holdMs?: number;
  /** Written once connected, then nothing more: a request head that never ends. */
  send?: string;
}

/** The start of a request head, never finished (the line that would end it never comes). */
export const PARTIAL_HEAD = 'GET /healthz HTTP/1.1\r\nHost: x\r\n';

/**
 * Keeps `count` sockets from `localAddress` against 127.0.0.1:`port`: silent, or each having
 * sent `options.send` only.
 */
export function floodSockets(
  port: number,
  localAddress: string,
  count: number,
  options: FloodOptions = {},
): Flood {
  const { reconnectMs = 10, holdMs = 0, send } = options;
  let running = true;
  let opened = 0;
  const sockets = new Set<Socket>();
  const dial = () => {
    if (!running) return;
    const socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: holdMs > 0 });
    opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    if (send !== undefined) socket.once('connect', () => socket.write(send));
    if (holdMs > 0) socket.once('end', () => setTimeout(() => socket.destroy(), holdMs).unref());
    socket.once('close', () => {
      sockets.delete(socket);
      setTimeout(dial, reconnectMs);
    });
  };
  for (let i = 0; i < count; i++) dial();
  return {
    opened: () => opened,
    open: () => sockets.size,
    stop: () => {
      running = false;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * One GET on a connection of its own (no keep-alive: each request has to be admitted), from
 * 127.0.0.1; resolves with the status, or 0 when the connection was refused, dropped or timed out.
 */
export function askOnce(port: number, path: string, headers: Record<string, string>, timeoutMs = 5_000) {
  return new Promise<number>((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers, agent: false, localAddress: '127.0.0.1', timeout: timeoutMs },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', () => resolve(0));
      },
    );
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** `requests` asks one after another, `pauseMs` apart; the share answered 200. */
export async function successRatio(
  ask: () => Promise<number>,
  requests: number,
  pauseMs: number,
): Promise<{ ratio: number; statuses: number[] }> {
  const statuses: number[] = [];
  for (let i = 0; i < requests; i++) {
    statuses.push(await ask());
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return { ratio: statuses.filter((status) => status === 200).length / requests, statuses };
}
