/**
 * One running daemon: the data dir watcher, the mod link server and the HTTP(S) API, wired
 * together. `modgate serve` and `modgate demo` both start exactly this.
 */
import { readFile } from 'node:fs/promises';
import { ModLinkServer } from '../protocol/link-server.ts';
import { type HostPort } from './host-port.ts';
import { startHttpServer, type HttpServerHandle, type HttpServerOptions } from './http/node-adapter.ts';
import { createPipeline, type Handle, type PipelineOptions } from './http/pipeline.ts';
import type { Logger } from './log.ts';
import { Idempotency } from './idempotency/idempotency.ts';
import { IdempotencyJournal } from './idempotency/journal.ts';
import { buildOpenApi } from './openapi.ts';
import type { AnyRoute } from './routes/define-route.ts';
import { ROUTES } from './routes/index.ts';
import { openDataDir, type DataDirWatcher } from './store/data-dir-watcher.ts';

export interface DaemonOptions {
  dataDir: string;
  listen: HostPort;
  modListen: HostPort;
  tls?: { certFile: string; keyFile: string };
  log: Logger;
  routes?: readonly AnyRoute[];
  /** Pipeline limits and policies (rate limits, body cap); the defaults are the product's. */
  pipeline?: Partial<
    Pick<PipelineOptions, 'keyRateLimit' | 'edgeRateLimit' | 'bodyLimitBytes' | 'now' | 'opDeadlines'>
  >;
  /** HTTP timeouts and the connection cap; defaults in HTTP_DEFAULTS. */
  http?: Partial<
    Pick<HttpServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'>
  >;
  link?: { heartbeatMs?: number; heartbeatTimeoutMs?: number; handshakeTimeoutMs?: number };
}

export interface Daemon {
  api: HostPort;
  modLink: HostPort;
  link: ModLinkServer;
  watcher: DataDirWatcher;
  handle: Handle;
  close(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const watcher = await openDataDir(options.dataDir);
  watcher.on('error', (error: Error) =>
    options.log.error('data dir reload failed', { error: error.message }),
  );
  const { identity } = watcher.current();
  const link = new ModLinkServer({
    identity: { publicKey: identity.daemonPublicKey, secretKey: identity.daemonSecretKey },
    trustedModKeys: () => watcher.current().trustedModKeys,
    log: options.log,
    ...options.link,
  });
  link.on('connect', (peer: { modVersion: string }) =>
    options.log.info('mod connected', { mod_version: peer.modVersion }),
  );
  link.on('disconnect', (code: number, reason: string) =>
    options.log.warn('mod disconnected', { code, reason }),
  );
  let http: HttpServerHandle | undefined;
  const journal = await IdempotencyJournal.open(options.dataDir);
  try {
    const modLink = await link.listen(options.modListen.host, options.modListen.port);
    const routes = options.routes ?? ROUTES;
    const handle = createPipeline({
      routes,
      snapshot: () => watcher.current(),
      link,
      openapi: buildOpenApi(routes),
      idempotency: new Idempotency(journal, identity.daemonSecretKey),
      log: options.log,
      ...options.pipeline,
    });
    const tls = options.tls
      ? { cert: await readFile(options.tls.certFile), key: await readFile(options.tls.keyFile) }
      : undefined;
    http = await startHttpServer(handle, { listen: options.listen, tls, log: options.log, ...options.http });
    const api = http.address;
    return {
      api,
      modLink,
      link,
      watcher,
      handle,
      close: async () => {
        await http?.close();
        await link.close();
        await journal.close();
        watcher.close();
      },
    };
  } catch (error) {
    await link.close();
    await journal.close();
    watcher.close();
    throw error;
  }
}
