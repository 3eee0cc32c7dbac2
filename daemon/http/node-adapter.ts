/**
 * node:http / node:https in front of the in-process pipeline. It owns only what needs a socket:
 * timeouts that defeat slowloris, the connection cap, streaming the body under its cap, and the
 * rule that plain HTTP listens on loopback only (ARCHITECTURE.md "The CLI contract").
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import proxyaddr from 'proxy-addr';
import type { Logger } from '../log.ts';
import { type HostPort, isLoopbackHost } from '../host-port.ts';
import type { Handle } from './pipeline.ts';
import { type ApiRequest, PayloadTooLarge } from './types.ts';

export interface HttpServerOptions {
  listen: HostPort;
  /** PEM certificate and key; without them the listener is plain HTTP and must be loopback. */
  tls?: { cert: Buffer; key: Buffer };
  /** Time to receive the whole header block (slowloris). */
  headersTimeoutMs?: number;
  /** Time to receive the whole request. */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  maxConnections?: number;
  /**
   * Addresses and ranges of reverse proxies whose X-Forwarded-For is believed. The client address
   * (IP allowlists, the edge limit) is then the nearest address in that header not in this list;
   * a request from anywhere else is judged by its socket address, whatever it claims.
   */
  trustedProxies?: readonly string[];
  log: Logger;
}

export interface HttpServerHandle {
  server: Server;
  address: HostPort;
  /** Replaces the trusted proxies (SIGHUP). */
  setTrustedProxies(list: readonly string[]): void;
  /** Serves new connections with this certificate and key; open connections keep theirs. */
  reloadTls(tls: { cert: Buffer; key: Buffer }): void;
  /** Stops accepting; in-flight requests get `drainMs` to finish before their sockets are cut. */
  close(drainMs?: number): Promise<void>;
}

export const HTTP_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_024,
} as const;

export async function startHttpServer(handle: Handle, options: HttpServerOptions): Promise<HttpServerHandle> {
  if (!options.tls && !isLoopbackHost(options.listen.host)) {
    throw new Error(
      `refusing to serve plain HTTP on ${options.listen.host}: pass --tls-cert and --tls-key, ` +
        'or listen on a loopback address behind a TLS-terminating reverse proxy',
    );
  }
  const serverOptions = {
    headersTimeout: options.headersTimeoutMs ?? HTTP_DEFAULTS.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs ?? HTTP_DEFAULTS.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? HTTP_DEFAULTS.keepAliveTimeoutMs,
    connectionsCheckingInterval: 1_000,
  };
  let trust = compileTrust(options.trustedProxies ?? []);
  const listener = (req: IncomingMessage, res: ServerResponse) =>
    void serve(handle, req, res, trust, options.log);
  const server: Server = options.tls
    ? createHttpsServer({ ...serverOptions, ...options.tls, minVersion: 'TLSv1.2' }, listener)
    : createHttpServer(serverOptions, listener);
  server.maxConnections = options.maxConnections ?? HTTP_DEFAULTS.maxConnections;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    options.log.debug('client error', { code: error.code, error: error.message });
    if (socket.writable) socket.end(`HTTP/1.1 ${clientErrorStatus(error.code)}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });
  server.listen(options.listen.port, options.listen.host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    server,
    address: { host: options.listen.host, port: address.port },
    setTrustedProxies: (list) => (trust = compileTrust(list)),
    reloadTls: (tls) => {
      if (!options.tls) throw new Error('this listener serves plain HTTP; TLS needs a restart');
      (server as unknown as { setSecureContext(o: object): void }).setSecureContext({
        ...tls,
        minVersion: 'TLSv1.2',
      });
    },
    close: (drainMs = 5_000) =>
      new Promise<void>((resolve) => {
        // Stop accepting, let requests in flight finish, then cut whatever is left.
        const cut = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** What a malformed or too-slow request is told before its connection closes. */
function clientErrorStatus(code: string | undefined): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  return '400 Bad Request';
}

type Trust = ((address: string, hop: number) => boolean) | null;

function compileTrust(list: readonly string[]): Trust {
  return list.length === 0 ? null : proxyaddr.compile([...list]);
}

async function serve(
  handle: Handle,
  req: IncomingMessage,
  res: ServerResponse,
  trust: Trust,
  log: Logger,
): Promise<void> {
  const request = toApiRequest(req, trust);
  try {
    const response = await handle(request.api);
    // A body we never read (refused before the body stage, or over the cap) would have to be
    // drained to reuse the connection; closing it is cheaper and safe.
    if (request.api.hasBody && !request.consumed()) response.headers['connection'] = 'close';
    res.writeHead(response.status, response.headers);
    res.end(response.body ?? undefined);
  } catch (error) {
    log.error('adapter failure', { error });
    if (!res.headersSent) res.writeHead(500, { connection: 'close' });
    res.end();
  }
}

function toApiRequest(req: IncomingMessage, trust: Trust): { api: ApiRequest; consumed(): boolean } {
  let consumed = false;
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const length = Number(req.headers['content-length'] ?? 0);
  const api: ApiRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers,
    remoteAddress: trust ? proxyaddr(req, trust) : (req.socket.remoteAddress ?? ''),
    hasBody: length > 0 || req.headers['transfer-encoding'] !== undefined,
    async readBody(limit) {
      // Checked from Content-Length first, then again while streaming (chunked bodies).
      if (length > limit) throw new PayloadTooLarge(limit);
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of req) {
        total += (chunk as Buffer).length;
        if (total > limit) throw new PayloadTooLarge(limit);
        chunks.push(chunk as Buffer);
      }
      consumed = true;
      return Buffer.concat(chunks);
    },
  };
  return { api, consumed: () => consumed };
}
