/**
 * node:http / node:https in front of the in-process pipeline. It owns only what needs a socket:
 * timeouts that defeat slowloris and silent sockets, the connection caps (connection-guard.ts),
 * streaming the body under its cap, the enveloped answers to what node:http refuses itself
 * (raw-response.ts), and the rule that plain HTTP listens on loopback only
 * (docs/reverse-proxy.md).
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import proxyaddr from 'proxy-addr';
import type { Logger } from '../log/log.ts';
import { type HostPort, isLoopbackHost } from '../host-port.ts';
import { ApiError } from './api-error.ts';
import { addressGrouping } from './client-address.ts';
import { guardConnections } from './connection-guard.ts';
import type { Handle } from './pipeline.ts';
import { catchSocketErrors, clientErrorAnswer, refuseRaw } from './raw-response.ts';
import { baseHeaders, errorResponse, newRequestId } from './respond.ts';
import {
  type ApiRequest,
  bodyByteLength,
  ClientGone,
  PayloadTooLarge,
  type ResponseStream,
} from './types.ts';

export interface HttpServerOptions {
  listen: HostPort;
  /** PEM certificate and key; without them the listener is plain HTTP and must be loopback. */
  tls?: { cert: Buffer; key: Buffer };
  /** Time to receive the whole header block (slowloris). */
  headersTimeoutMs?: number;
  /** Time to receive the whole request. */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Open connections in all; when full, an idle one of the address holding most makes room. */
  maxConnections?: number;
  /** Open connections per client address (IPv6: per /64 unless ipv6PrefixLength); trusted proxies are exempt. */
  maxConnectionsPerAddress?: number;
  /** A connection that has sent no byte this long after opening is closed. */
  firstByteTimeoutMs?: number;
  /** The IPv6 prefix a client address is counted by (`[api] ipv6_prefix_length`; 64). */
  ipv6PrefixLength?: number;
  /**
   * Addresses and ranges of reverse proxies whose X-Forwarded-For is believed. The client address
   * (IP allowlists, the edge limit) is then the nearest address in that header not in this list;
   * a request from anywhere else is judged by its socket address, whatever it claims.
   */
  trustedProxies?: readonly string[];
  /**
   * Binds the server itself instead of listening on `listen` (the admin Unix socket,
   * daemon/admin/admin-socket.ts): not a network address, so the plain-HTTP rule does not apply.
   */
  bind?: (server: Server) => Promise<void>;
  log: Logger;
}

/** The API listener's timeouts, connection caps and trusted proxies (`[api]`); defaults in HTTP_DEFAULTS. */
export type HttpLimits = Partial<
  Pick<
    HttpServerOptions,
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'maxConnections'
    | 'maxConnectionsPerAddress'
    | 'firstByteTimeoutMs'
    | 'ipv6PrefixLength'
    | 'trustedProxies'
  >
>;

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
  maxConnectionsPerAddress: 64,
  firstByteTimeoutMs: 10_000,
} as const;

export async function startHttpServer(handle: Handle, options: HttpServerOptions): Promise<HttpServerHandle> {
  if (!options.tls && !options.bind && !isLoopbackHost(options.listen.host)) {
    throw new Error(
      `refusing to serve plain HTTP on ${options.listen.host}: pass --tls-cert and --tls-key, ` +
        'or listen on a loopback address behind a TLS-terminating reverse proxy',
    );
  }
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? HTTP_DEFAULTS.firstByteTimeoutMs;
  const serverOptions = {
    headersTimeout: options.headersTimeoutMs ?? HTTP_DEFAULTS.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs ?? HTTP_DEFAULTS.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? HTTP_DEFAULTS.keepAliveTimeoutMs,
    connectionsCheckingInterval: 1_000,
    // node's own answer to an HTTP/1.1 request without Host is a bare 400; serve() gives the
    // envelope instead (docs/errors.md "Before routing").
    requireHostHeader: false,
  };
  let trust = compileTrust(options.trustedProxies ?? []);
  const timedOut = new WeakSet<Duplex>();
  const streams = new Set<ResponseStream>();
  const listener = (req: IncomingMessage, res: ServerResponse) =>
    void serve(handle, req, res, { trust, timedOut, streams, log: options.log });
  const server: Server = options.tls
    ? createHttpsServer(
        { ...serverOptions, ...options.tls, minVersion: 'TLSv1.2', handshakeTimeout: firstByteTimeoutMs },
        listener,
      )
    : createHttpServer(serverOptions, listener);
  // Not server.maxConnections: node drops sockets over it, first come first served; the guard
  // admits fairly instead (connection-guard.ts).
  guardConnections(server, {
    maxConnections: options.maxConnections ?? HTTP_DEFAULTS.maxConnections,
    maxPerAddress: options.maxConnectionsPerAddress ?? HTTP_DEFAULTS.maxConnectionsPerAddress,
    firstByteTimeoutMs: options.tls ? 0 : firstByteTimeoutMs,
    addressGroup: addressGrouping(options.ipv6PrefixLength),
    exempt: (address) => trust !== null && trust(address, 0),
    // Over TLS the socket is still encrypted: plain text would be noise, so it is just closed.
    refuse: (socket: Socket, error) => (options.tls ? socket.destroy() : refuseRaw(socket, error)),
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.add(socket);
    if (error.code === 'ECONNRESET') return void socket.destroy();
    const answer = clientErrorAnswer(error.code);
    const refusal = refuseRaw(socket, answer.error);
    options.log.debug('client error', {
      ...refusal,
      reason: answer.reason,
      error: error.code ?? error.message,
    });
  });
  // A CONNECT would otherwise be dropped without a word: this is not a proxy. node:http hands
  // the socket over without its error listener; refuseRaw gives it one before writing.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    refuseRaw(socket, new ApiError('not_found', 'CONNECT is not served here: this is not a proxy.'));
  });
  // No 'upgrade' listener, on purpose: without one node:http passes a request carrying
  // `Upgrade: websocket` or `Upgrade: h2c` to the pipeline like any other, so it is routed and
  // answered in the envelope, and the socket keeps node's own error listener.

  // A failed TLS handshake: node destroys the socket; one more error on it must not escape.
  server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    catchSocketErrors(socket);
    options.log.debug('tls client error', { error: error.code ?? error.message });
  });
  if (options.bind) await options.bind(server);
  else {
    server.listen(options.listen.port, options.listen.host);
    await once(server, 'listening');
  }
  const bound = server.address();
  return {
    server,
    address: {
      host: options.listen.host,
      port: typeof bound === 'object' && bound ? (bound as AddressInfo).port : 0,
    },
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
        // Streams never finish by themselves: each ends with its final message (docs/events.md).
        for (const stream of streams) stream.close('shutdown');
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

type Trust = ((address: string, hop: number) => boolean) | null;

function compileTrust(list: readonly string[]): Trust {
  return list.length === 0 ? null : proxyaddr.compile([...list]);
}

interface ServeContext {
  trust: Trust;
  /** Sockets whose request timed out: the listener already answered them 408. */
  timedOut: WeakSet<Duplex>;
  /** The open streamed responses, which close() ends first. */
  streams: Set<ResponseStream>;
  log: Logger;
}

async function serve(handle: Handle, req: IncomingMessage, res: ServerResponse, context: ServeContext) {
  const hostProblem = hostProblemOf(req);
  if (hostProblem) return refuseHost(res, hostProblem, context.log);
  const request = toApiRequest(req, context);
  const socket = req.socket;
  try {
    const response = await handle(request.api);
    // Gone (aborted, or answered 408 by the listener): nobody to write to.
    if (!socket.writable) {
      response.stream?.abandon();
      return void res.destroy();
    }
    // A body we never read (refused before the body stage, or over the cap) would have to be
    // drained to reuse the connection; closing it is cheaper and safe.
    if (request.api.hasBody && !request.consumed()) response.headers['connection'] = 'close';
    // A known length spares the chunked framing (and the client's reassembly of it).
    if (response.body) response.headers['content-length'] = String(bodyByteLength(response.body));
    res.writeHead(response.status, response.headers);
    if (response.stream) return startStream(response.stream, res, context.streams);
    res.end(response.body ?? undefined);
  } catch (error) {
    context.log.error('adapter failure', { error });
    if (res.headersSent) return void res.end();
    answerAndClose(res, new ApiError('internal'));
  }
}

type HostProblem = 'missing_host' | 'duplicate_host';

const HOST_PROBLEMS: Record<HostProblem, string> = {
  missing_host: 'An HTTP/1.1 request must carry a Host header.',
  duplicate_host: 'A request must carry one Host header, not several.',
};

/**
 * RFC 9112 §3.2: an HTTP/1.1 request must carry Host (HTTP/1.0 may omit it), and a request with
 * more than one is answered 400. Node keeps the first of several and drops the rest, so a check
 * of `Host` (the admin listener's DNS-rebinding defence) would see only the one the client put
 * first; refused here, no stage ever meets an ambiguous Host.
 */
function hostProblemOf(req: IncomingMessage): HostProblem | null {
  if (req.headers.host === undefined) {
    return req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 ? 'missing_host' : null;
  }
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  return hosts > 1 ? 'duplicate_host' : null;
}

function refuseHost(res: ServerResponse, reason: HostProblem, log: Logger): void {
  const requestId = answerAndClose(res, new ApiError('validation_error', HOST_PROBLEMS[reason]));
  log.debug('client error', { requestId, status: 400, code: 'validation_error', reason });
}

/** The envelope for `error` on a fresh request id, and the connection closes after it. */
function answerAndClose(res: ServerResponse, error: ApiError): string {
  const requestId = newRequestId();
  const answer = errorResponse(error, requestId, baseHeaders(requestId));
  const length = String(answer.body === null ? 0 : bodyByteLength(answer.body));
  res.writeHead(answer.status, { ...answer.headers, connection: 'close', 'content-length': length });
  res.end(answer.body);
  return requestId;
}

/** Hands a streamed response its sink: the socket, with what it still buffers for the client. */
function startStream(stream: ResponseStream, res: ServerResponse, streams: Set<ResponseStream>): void {
  streams.add(stream);
  // A write racing the client's reset must not become an unhandled 'error'; 'close' cleans up.
  res.on('error', () => res.destroy());
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let grace: NodeJS.Timeout | null = null;
  const listeners: Array<() => void> = [];
  res.once('close', () => {
    streams.delete(stream);
    if (grace) clearTimeout(grace);
    for (const listener of listeners) listener();
  });
  stream.start({
    write: (text) => void (res.writableEnded || res.write(text)),
    bufferedBytes: () => res.writableLength + (res.socket?.writableLength ?? 0),
    end: (graceMs) => {
      res.end();
      grace = setTimeout(() => res.destroy(), graceMs);
      grace.unref();
    },
    onClose: (listener) => listeners.push(listener),
    onDrain: (listener) => void res.on('drain', listener),
  });
}

function toApiRequest(req: IncomingMessage, context: ServeContext): { api: ApiRequest; consumed(): boolean } {
  const { trust } = context;
  let consumed = false;
  const socket = req.socket;
  const headers = flatHeaders(req.headers);
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
      try {
        for await (const chunk of req) {
          total += (chunk as Buffer).length;
          if (total > limit) throw new PayloadTooLarge(limit);
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        if (error instanceof PayloadTooLarge || !req.destroyed) throw error;
        throw new ClientGone(context.timedOut.has(socket) ? 'timeout' : 'aborted');
      }
      consumed = true;
      return Buffer.concat(chunks);
    },
  };
  return { api, consumed: () => consumed };
}

/** The request's headers with one string each: node:http's own object, unless one repeats. */
function flatHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  for (const name in headers) {
    if (Array.isArray(headers[name])) {
      const flat: Record<string, string | undefined> = {};
      for (const [key, value] of Object.entries(headers)) {
        flat[key] = Array.isArray(value) ? value.join(', ') : value;
      }
      return flat;
    }
  }
  return headers as Record<string, string | undefined>;
}
