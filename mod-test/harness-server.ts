/**
 * Where the mod dials the harness (PROTOCOL §1.1): a WebSocket server on the data dir's mod-link
 * address, with the daemon's settings (no subprotocol, no compression, the 1 MiB message cap).
 * It only queues connections; the runner takes them one by one, as the daemon admits one mod.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_MAX_PAYLOAD } from '../protocol/link-connection.ts';
import { HarnessLink } from './harness-link.ts';

export class HarnessServer {
  readonly #wss: WebSocketServer;
  readonly #queue: HarnessLink[] = [];
  #waiter: (() => void) | null = null;
  /** Every connection the mod opened, in order. */
  connections = 0;

  private constructor(wss: WebSocketServer) {
    this.#wss = wss;
    wss.on('connection', (socket: WebSocket) => {
      this.connections += 1;
      this.#queue.push(new HarnessLink(socket));
      this.#waiter?.();
    });
  }

  static async listen(host: string, port: number): Promise<HarnessServer> {
    const wss = new WebSocketServer({
      host,
      port,
      maxPayload: DEFAULT_MAX_PAYLOAD,
      perMessageDeflate: false,
      handleProtocols: () => false,
    });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    wss.on('error', () => {});
    return new HarnessServer(wss);
  }

  get address(): { host: string; port: number } {
    const address = this.#wss.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  /** The next connection the mod opens (queued ones first), or null after `timeoutMs`. */
  async next(timeoutMs: number): Promise<HarnessLink | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = null;
    }
    return this.#queue.shift() ?? null;
  }

  /** Connections queued and not yet taken (a second dial while one link is up). */
  get queued(): number {
    return this.#queue.length;
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}
