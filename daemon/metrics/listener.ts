/**
 * The metrics listener: `GET /metrics` in the Prometheus text format, on its own address, off
 * unless `--metrics-listen` or `[metrics] listen` turns it on. Apart from the API listener, so
 * metrics never share the API's rate limits, keys or exposure.
 *
 * Exposure rule (docs/metrics.md): plain HTTP, bound to a loopback address; a non-loopback
 * address needs an allowlist of scrapers (`[metrics] allow`, `--metrics-allow`), and then only
 * those addresses are answered (403 for anyone else). The metrics carry no key, player or
 * client address, but they do tell how busy a server is, so they are not published to the world.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { formatHostPort, isLoopbackHost, type HostPort } from '../host-port.ts';
import type { Logger } from '../log/log.ts';
import { isIpAllowed } from '../store/allow-ip.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsListenOptions {
  listen: HostPort;
  /** Canonical CIDR ranges of the scrapers; empty: anyone who can reach the address. */
  allow: readonly string[];
}

export interface MetricsServer {
  address: HostPort;
  close(): Promise<void>;
}

/** Why this exposure is refused, or null when it is fine: the operator's fix is in the text. */
export function metricsExposureProblem(options: MetricsListenOptions): string | null {
  if (isLoopbackHost(options.listen.host) || options.allow.length > 0) return null;
  return (
    `refusing to serve metrics on ${formatHostPort(options.listen)} to everyone: listen on a ` +
    'loopback address, or name the scrapers with --metrics-allow CIDR ([metrics] allow in the config)'
  );
}

export async function startMetricsServer(
  registry: Registry,
  options: MetricsListenOptions,
  log: Logger,
): Promise<MetricsServer> {
  const problem = metricsExposureProblem(options);
  if (problem) throw new Error(problem);
  const server = createServer((req, res) => void answer(registry, options.allow, req, res, log));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.maxConnections = 64;
  server.listen(options.listen.port, options.listen.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error as Error)),
  ]);
  const port = (server.address() as AddressInfo).port;
  return {
    address: { host: options.listen.host, port },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(
  registry: Registry,
  allow: readonly string[],
  req: IncomingMessage,
  res: ServerResponse,
  log: Logger,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (!isIpAllowed(allow, req.socket.remoteAddress ?? '')) return plain(res, 403, 'forbidden\n');
  if (path !== METRICS_PATH) return plain(res, 404, 'not found: the metrics are at /metrics\n');
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed\n');
  try {
    const body = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (error) {
    log.error('metrics collection failed', { error });
    plain(res, 500, 'metrics collection failed\n');
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
