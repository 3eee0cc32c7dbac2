/**
 * The admin API's listeners (docs/admin.md): always `<data-dir>/admin.sock` (admin-socket.ts),
 * and on TCP when `--admin-listen` / `[admin] listen` asks, with admin tokens: plain HTTP only on
 * a loopback address, TLS anywhere else (its own `[admin] tls_cert`/`tls_key`, else the API's
 * pair), the certificate reloaded like the API's (tls-files.ts). Both listeners are the API
 * listener's node:http adapter, with its timeouts, connection caps and hostile-socket hygiene.
 * The TCP listener also serves the operator panel and its sessions (panel/panel-gate.ts); both
 * listeners use the sessions (codes are minted on the socket), which the daemon makes, since what
 * ends them is one of its reactions (daemon/reactions.ts).
 */
import type { HostPort } from '../host-port.ts';
import { startHttpServer, type HttpServerHandle, type HttpServerOptions } from '../http/node-adapter.ts';
import { readTls, watchTls } from '../http/tls-files.ts';
import type { Idempotency } from '../idempotency/idempotency.ts';
import { listening } from '../listen-error.ts';
import type { Logger } from '../log/log.ts';
import { adminOpenApi } from './admin-openapi.ts';
import { type AdminHandle, createAdminPipeline } from './admin-pipeline.ts';
import { adminSocketPath, bindAdminSocket } from './admin-socket.ts';
import type { AnyAdminRoute } from './define-admin-route.ts';
import type { AdminServices, PanelServices } from './services.ts';
import { adminExposureProblem, type AdminListenOptions } from './admin-listen.ts';
import { formatHostPort } from '../host-port.ts';
import { ROUTES } from '../routes/index.ts';
import { PanelAssets, panelSource } from './panel/panel-assets.ts';
import { writeRouteSummaries } from './panel/panel-bundle.ts';
import { PanelGate } from './panel/panel-gate.ts';
import type { SessionStore } from './sessions.ts';
import type { TokenBackoff } from './stages/token-backoff.ts';

export interface AdminServer {
  socketPath: string;
  /** The TCP listener's address as bound, or null. */
  address: HostPort | null;
  /** Reads the TCP listener's certificate again (SIGHUP). */
  reload(): Promise<void>;
  close(drainMs: number): Promise<void>;
}

export interface AdminServerInit {
  dataDir: string;
  /** The daemon's parts; the panel's are added here. */
  services: Omit<AdminServices, 'panel'>;
  /** The panel's sessions (made with `options.sessions`). */
  sessions: SessionStore;
  routes: readonly AnyAdminRoute[];
  /** The listeners' own settings (the rest of `[admin]` went to the services they configure). */
  options: Pick<AdminListenOptions, 'listen' | 'tls' | 'hostnames' | 'backoff'>;
  idempotency: Idempotency;
  /** The API listener's HTTP limits, which the admin listeners share. */
  http: Omit<HttpServerOptions, 'listen' | 'tls' | 'log' | 'bind' | 'trustedProxies'>;
  log: Logger;
}

export async function startAdminServer(init: AdminServerInit): Promise<AdminServer> {
  const { routes, options, log } = init;
  let tcp: HttpServerHandle | undefined;
  const panel = panelServices(init.sessions, options, () => tcp);
  const services: AdminServices = { ...init.services, panel };
  const openapi = () => adminOpenApi(routes);
  const uid = process.getuid?.() ?? 0;
  const socketHandle = createAdminPipeline({
    routes,
    services,
    transport: { kind: 'socket', uid },
    log,
    idempotency: init.idempotency,
    openapi,
  });
  const socket = await startHttpServer(socketHandle, {
    ...init.http,
    listen: { host: adminSocketPath(init.dataDir), port: 0 },
    bind: (server) => bindAdminSocket(server, init.dataDir),
    log,
  });
  try {
    tcp = options.listen ? await startTcp({ ...init, services }, options.listen, openapi) : undefined;
  } catch (error) {
    await socket.close(0);
    throw error;
  }
  const tls = tcp ? watchTls(options.tls, tcp, log) : undefined;
  return {
    socketPath: adminSocketPath(init.dataDir),
    address: tcp?.address ?? null,
    reload: async () => tls?.reload(),
    close: async (drainMs) => {
      tls?.close();
      await Promise.all([socket.close(drainMs), tcp?.close(drainMs)]);
    },
  };
}

/** The panel's sessions, and the TCP listener's URL. */
function panelServices(
  sessions: SessionStore,
  options: AdminServerInit['options'],
  tcp: () => HttpServerHandle | undefined,
): PanelServices {
  const tls = options.listen !== undefined && options.tls !== undefined;
  return {
    sessions,
    tls,
    url: () => {
      const address = tcp()?.address;
      return address ? `${tls ? 'https' : 'http'}://${formatHostPort(address)}` : null;
    },
  };
}

/** The panel gate of the TCP listener, sharing the pipeline's back-off and body limit. */
function panelGate(services: AdminServices, routes: readonly AnyAdminRoute[]) {
  const assets = new PanelAssets(panelSource(writeRouteSummaries([...ROUTES, ...routes])));
  return (pipeline: { backoff: TokenBackoff; bodyLimitBytes: number }) =>
    new PanelGate({
      ...pipeline,
      assets,
      sessions: services.panel.sessions,
      tls: services.panel.tls,
      verifyToken: (text) => services.tokens.verify(text),
      redeemInvite: (code) => services.tokens.redeemInvite(code),
      tokenActive: (id) => services.snapshot().adminTokensById.get(id)?.revokedAt === null,
    });
}

async function startTcp(
  init: AdminServerInit & { services: AdminServices },
  listen: HostPort,
  openapi: () => unknown,
) {
  const { options } = init;
  const problem = adminExposureProblem(options);
  if (problem) throw new Error(problem);
  const certificate = options.tls ? await readTls(options.tls) : undefined;
  // The Host rule needs the port as bound (port 0 picks one): the pipeline is made once bound.
  let handle: AdminHandle = () => Promise.reject(new Error('the admin listener is not bound yet'));
  const server = await listening('admin', listen, () =>
    startHttpServer((req) => handle(req), { ...init.http, listen, tls: certificate, log: init.log }),
  );
  handle = createAdminPipeline({
    routes: init.routes,
    services: init.services,
    transport: {
      kind: 'tcp',
      listen: server.address,
      tls: certificate !== undefined,
      hostnames: options.hostnames ?? [],
    },
    log: init.log,
    idempotency: init.idempotency,
    openapi,
    panel: panelGate(init.services, init.routes),
    backoff: {
      ...options.backoff,
      ...(init.http.ipv6PrefixLength !== undefined ? { ipv6PrefixLength: init.http.ipv6PrefixLength } : {}),
    },
  });
  return server;
}
