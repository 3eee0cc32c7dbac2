/**
 * One running daemon: the data dir's live snapshot, the mod link server and the HTTP(S) API,
 * wired together. `modgate serve` and `modgate demo` both start exactly this.
 *
 * Lifecycle: start opens the data dir and takes its daemon lock, opens the idempotency journal
 * and the audit log, then listens for the mod, then for clients. reload() (`modgate reload`,
 * SIGHUP) re-reads keys and state, certificates and the reloadable settings; nothing polls the
 * files. close() (SIGTERM) stops accepting, lets in-flight requests finish within the drain
 * time, closes the mod link with its close code, flushes the journal and the log, and releases
 * the lock.
 */
import packageJson from '../package.json' with { type: 'json' };
import { ModLinkServer, type ModLinkServerOptions } from '../protocol/link-server.ts';
import { AuditLog } from './log/audit-log.ts';
import { formatHostPort, type HostPort } from './host-port.ts';
import { edgeSubject } from './http/client-address.ts';
import { startHttpServer, type HttpServerHandle, type HttpServerOptions } from './http/node-adapter.ts';
import { readTls, watchTls } from './http/tls-files.ts';
import {
  createPipeline,
  type Pipeline,
  type PipelineOptions,
  type PipelineSettings,
} from './http/pipeline.ts';
import type { EventLimits } from './events/event-limits.ts';
import { recordLinkEvents } from './events/ingest.ts';
import { FileEventLog, type EventLogOptions } from './events/event-log.ts';
import type { StreamSettings } from './events/sse-stream.ts';
import type { RetryPolicy } from './events/webhooks/retry-policy.ts';
import { WebhookService, type WebhookNetworkOptions } from './events/webhooks/webhook-service.ts';
import { Idempotency } from './idempotency/idempotency.ts';
import { IdempotencyJournal } from './idempotency/journal.ts';
import { listening } from './listen-error.ts';
import type { Logger } from './log/log.ts';
import { startMetricsServer, type MetricsListenOptions, type MetricsServer } from './metrics/listener.ts';
import { noopMetrics, type DaemonMetrics } from './metrics/metrics.ts';
import { StorageHealth } from './storage-health.ts';
import { WorkerHealth } from './worker-health.ts';
import { buildOpenApi } from './openapi/openapi.ts';
import type { AnyRoute } from './http/define-route.ts';
import { ROUTES } from './routes/index.ts';
import { holdDaemonLock, type HeldDaemonLock } from './store/daemon-lock.ts';
import { DataDir } from './store/data-dir.ts';
import { KeyUsageRecorder } from './store/key-usage-recorder.ts';
import type { LiveSnapshot } from './store/live-snapshot.ts';
import { modCredentialsFile } from './store/mod-credentials.ts';
import { AdminEventStreams } from './admin/admin-event-streams.ts';
import { AdminTokens } from './admin/admin-tokens.ts';
import type { AdminListenOptions } from './admin/admin-listen.ts';
import { type AdminServer, startAdminServer } from './admin/admin-server.ts';
import { RecentRequests } from './admin/recent-requests.ts';
import type { ReloadOutcome } from './admin/services.ts';
import { ADMIN_ROUTES } from './admin/routes/index.ts';

export interface DaemonOptions {
  dataDir: string;
  listen: HostPort;
  modListen: HostPort;
  tls?: { certFile: string; keyFile: string };
  log: Logger;
  routes?: readonly AnyRoute[];
  /** Pipeline limits and policies (rate limits, body cap); the defaults are the product's. */
  pipeline?: Partial<
    Pick<
      PipelineOptions,
      | 'keyRateLimit'
      | 'edgeRateLimit'
      | 'bodyLimitBytes'
      | 'now'
      | 'opDeadlines'
      | 'checkResponses'
      | 'streamLimits'
    >
  >;
  /** HTTP timeouts, the connection cap and trusted proxies; defaults in HTTP_DEFAULTS. */
  http?: Partial<
    Pick<
      HttpServerOptions,
      | 'headersTimeoutMs'
      | 'requestTimeoutMs'
      | 'keepAliveTimeoutMs'
      | 'maxConnections'
      | 'maxConnectionsPerAddress'
      | 'firstByteTimeoutMs'
      | 'trustedProxies'
    >
  >;
  link?: Partial<
    Pick<
      ModLinkServerOptions,
      | 'heartbeatMs'
      | 'heartbeatTimeoutMs'
      | 'handshakeTimeoutMs'
      | 'maxConnections'
      | 'maxConnectionsPerAddress'
    >
  >;
  /** How long close() lets in-flight requests finish before cutting them; default 10 s. */
  drainMs?: number;
  /** The metrics listener (docs/metrics.md); without it nothing is counted. */
  metrics?: MetricsListenOptions;
  /** Event log retention (docs/events.md); defaults 1,000,000 events / 7 days. */
  events?: Pick<
    EventLogOptions,
    'maxEvents' | 'maxAgeMs' | 'segmentEvents' | 'segmentBytes' | 'maxLineBytes'
  >;
  /** What the mod may send into the log (PROTOCOL §9.5, docs/events.md "Limits"). */
  eventLimits?: Partial<EventLimits>;
  /** The SSE stream's heartbeat and slow-reader limit (docs/events.md). */
  stream?: Partial<StreamSettings>;
  /** Webhook retry timing and limits (docs/events.md, "Webhooks"); tests shrink them. */
  webhooks?: Partial<RetryPolicy>;
  /**
   * Where webhooks may connect: `[webhooks] allow_networks` for the operator's endpoints; tests
   * also inject the resolver. The daemon adds its own listeners, which no webhook may reach.
   */
  webhookNetwork?: Omit<WebhookNetworkOptions, 'ownListeners'>;
  /** How often key uses are written to key-usage.json (docs/data-dir.md); tests shrink it. */
  keyUsage?: { flushDelayMs?: number };
  /** The admin API: admin.sock always, TCP when `listen` is set (docs/admin.md). */
  admin?: AdminListenOptions;
  /**
   * A reload asked for over the admin API (`modgate reload`): serve's reads its config file again
   * and applies it as on SIGHUP; without one, `daemon.reload()` with no settings. Rejects, with
   * the reason, when it was refused.
   */
  reload?: (daemon: Daemon) => Promise<ReloadOutcome>;
}

/** What a reload (SIGHUP) may change without a restart. */
export interface ReloadSettings extends PipelineSettings {
  trustedProxies?: readonly string[];
  /** `[webhooks] allow_networks`. */
  webhookAllowNetworks?: readonly string[];
}

export interface Daemon {
  api: HostPort;
  modLink: HostPort;
  link: ModLinkServer;
  /** What the daemon serves from: keys, state, identity; reload() or an admin write replaces it. */
  snapshot: LiveSnapshot;
  handle: Pipeline;
  /** Where the daemon's parts report what they count; no-ops without a metrics listener. */
  metrics: DaemonMetrics;
  /** The metrics listener's address, when one is configured. */
  metricsAddress: HostPort | null;
  /** The durable event log every events reader (stream, polling, webhooks) reads from. */
  events: FileEventLog;
  /** The webhook registry and its delivery workers, readers of `events`. */
  webhooks: WebhookService;
  /** When and from where each API key was last used (key-usage.json). */
  keyUsage: KeyUsageRecorder;
  startedAt: Date;
  /** The admin API's socket path and TCP address (null without `--admin-listen`). */
  admin: { socketPath: string; address: HostPort | null };
  /**
   * Loads the data dir's files again and applies `settings`; refused whole (rejects, nothing
   * changes) when a file is broken: the last good snapshot stays.
   */
  reload(settings?: ReloadSettings | (() => Promise<ReloadSettings>)): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_DRAIN_MS = 10_000;

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const dataDir = await DataDir.open(options.dataDir);
  const daemonLock = await holdDaemonLock(dataDir.path);
  try {
    return await startLocked(options, dataDir, daemonLock);
  } catch (error) {
    await daemonLock.release();
    throw error;
  }
}

/** startDaemon's steps once the data dir's daemon lock is held. */
async function startLocked(
  options: DaemonOptions,
  dataDir: DataDir,
  daemonLock: HeldDaemonLock,
): Promise<Daemon> {
  const log = options.log;
  const snapshot = await dataDir.load();
  const { identity } = snapshot.current();
  const prometheus = await prometheusFor(options);
  const requests = new RecentRequests();
  const metrics = countingRequests(prometheus ?? noopMetrics, requests);
  const tokens = new AdminTokens({ dataDir, snapshot: () => snapshot.current(), log });
  let reloadRequested = (): Promise<ReloadOutcome> =>
    Promise.reject(new Error('the daemon is still starting'));
  snapshot.on('change', (current) => tokens.snapshotChanged(current));
  const link = createLink(options, snapshot, metrics);
  const storage = new StorageHealth(log);
  const workers = new WorkerHealth();
  const journal = await IdempotencyJournal.open(dataDir.path, { log, health: storage });
  const audit = await AuditLog.open(dataDir.path, storage);
  const keyUsage = await KeyUsageRecorder.open(dataDir, {
    ...options.keyUsage,
    onError: (error) => log.warn('cannot record key use', { error: (error as Error).message }),
  });
  const events = await FileEventLog.open(dataDir.path, {
    ...options.events,
    log,
    metrics,
    health: storage,
  });
  const unwireEvents = recordLinkEvents(link, events, log, { limits: options.eventLimits, metrics });
  // As configured until they listen, then as bound (a port 0 becomes the real one).
  let ownListeners: HostPort[] = [options.listen, options.modListen];
  if (options.metrics) ownListeners.push(options.metrics.listen);
  if (options.admin?.listen) ownListeners.push(options.admin.listen);
  const webhooks = await WebhookService.start({
    dataDir: dataDir.path,
    eventLog: events,
    serverId: identity.serverId,
    logger: log,
    metrics,
    workerHealth: workers,
    ...(options.webhooks ? { policy: options.webhooks } : {}),
    network: { ...options.webhookNetwork, ownListeners: () => ownListeners },
    keys: () => snapshot.current().keysById,
  });
  revokeOnChange(snapshot, webhooks, link, log);
  const startedAt = new Date();
  let http: HttpServerHandle | undefined;
  let metricsServer: MetricsServer | undefined;
  let admin: AdminServer | undefined;
  const closeStores = async () => {
    await tokens.close();
    await metricsServer?.close();
    await link.close(); // its mod.disconnected still reaches the log
    unwireEvents();
    await webhooks.close();
    await events.close();
    await journal.close();
    await audit.close();
    await keyUsage.close();
    await daemonLock.release();
  };
  try {
    const modLink = await listening('mod_link', options.modListen, () =>
      link.listen(options.modListen.host, options.modListen.port),
    );
    await warnOnCredentialsUrl(dataDir, modLink, log);
    if (prometheus && options.metrics) {
      const metricsOptions = options.metrics;
      metricsServer = await listening('metrics', metricsOptions.listen, () =>
        startMetricsServer(prometheus.registry, metricsOptions, log),
      );
    }
    const idempotency = new Idempotency(journal, identity.daemonSecretKey);
    const stores = { idempotency, audit, storage, workers, events, webhooks, keyUsage };
    // Before the API. (A second serve on this data dir never gets here: the daemon lock refuses it.)
    admin = await startAdminServer({
      dataDir: dataDir.path,
      services: {
        dataDir,
        snapshot: () => snapshot.current(),
        apply: (part) => snapshot.reloadPart(part),
        startedAt,
        link: () => linkStatus(link),
        playersOnline: () => playersOnline(link),
        events,
        webhooks,
        audit,
        tokens,
        requests,
        keyUsage,
        reload: () => reloadRequested(),
        eventStreams: adminEventStreams(options, events, snapshot, tokens, metrics),
        ...(options.admin?.auditRead ? { auditRead: options.admin.auditRead } : {}),
      },
      routes: ADMIN_ROUTES,
      options: options.admin ?? {},
      idempotency,
      http: options.http ?? {},
      log,
    });
    const adminServer = admin;
    const handle = daemonPipeline(options, snapshot, link, metrics, stores, startedAt);
    const certificate = options.tls ? await readTls(options.tls) : undefined;
    const server = await listening('api', options.listen, () =>
      startHttpServer(handle, { listen: options.listen, tls: certificate, log, ...options.http }),
    );
    http = server;
    ownListeners = [server.address, modLink, metricsServer?.address, adminServer.address].filter(isListening);
    const tls = watchTls(options.tls, server, log, certificate);
    const daemon: Daemon = {
      api: server.address,
      modLink,
      link,
      snapshot,
      handle,
      metrics,
      metricsAddress: metricsServer?.address ?? null,
      events,
      webhooks,
      keyUsage,
      startedAt,
      admin: { socketPath: adminServer.socketPath, address: adminServer.address },
      reload: async (settings = {}) => {
        // logrotate's reason for the signal: the moved audit log is let go whatever the data
        // files hold, or a broken one would keep every audit line going to the rotated file.
        await audit.reopen();
        await tls.reload(); // a renewed certificate, whatever the data files hold (never rejects)
        // The settings as a function: serve reads its config file here, so a broken one is
        // refused after the two steps above, like a broken data file.
        const applied = typeof settings === 'function' ? await settings() : settings;
        await snapshot.reload(); // a broken file rejects here, before anything else changed
        await webhooks.reload(); // webhooks.json edited by hand (a broken one is logged and kept as loaded)
        await adminServer.reload();
        handle.reconfigure(applied);
        if (applied.trustedProxies) server.setTrustedProxies(applied.trustedProxies);
        if (applied.webhookAllowNetworks) webhooks.setAllowNetworks(applied.webhookAllowNetworks);
      },
      close: async () => {
        tls.close();
        const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
        await Promise.all([server.close(drainMs), adminServer.close(drainMs)]);
        await closeStores();
      },
    };
    reloadRequested = requestedReload(options, daemon);
    return daemon;
  } catch (error) {
    await admin?.close(0);
    await http?.close(0);
    await closeStores();
    throw error;
  }
}

/** What POST /admin/v1/reload runs: serve's reload (its config file read again), else the daemon's own. */
function requestedReload(options: DaemonOptions, daemon: Daemon): () => Promise<ReloadOutcome> {
  return async () => {
    if (options.reload) return options.reload(daemon);
    await daemon.reload();
    return { restartNeeded: [] };
  };
}

/** GET /admin/v1/events: its streams, with the /v1 stream's settings and the admin caps. */
function adminEventStreams(
  options: DaemonOptions,
  events: FileEventLog,
  snapshot: LiveSnapshot,
  tokens: AdminTokens,
  metrics: DaemonMetrics,
): AdminEventStreams {
  return new AdminEventStreams({
    eventLog: events,
    snapshot: () => snapshot.current(),
    onTokenRevoked: (listener) => tokens.onRevoked(listener),
    ...(options.stream ? { settings: options.stream } : {}),
    ...(options.admin?.eventStreams ? { limits: options.admin.eventStreams } : {}),
    metrics,
  });
}

/** The request pipeline over this daemon's data dir, mod link and stores. */
function daemonPipeline(
  options: DaemonOptions,
  snapshot: LiveSnapshot,
  link: ModLinkServer,
  metrics: DaemonMetrics,
  stores: {
    idempotency: Idempotency;
    audit: AuditLog;
    storage: StorageHealth;
    workers: WorkerHealth;
    events: FileEventLog;
    webhooks: WebhookService;
    keyUsage: KeyUsageRecorder;
  },
  startedAt: Date,
): Pipeline {
  const { idempotency, audit, storage, workers, events, webhooks, keyUsage } = stores;
  const routes = options.routes ?? ROUTES;
  return createPipeline({
    routes,
    snapshot: () => snapshot.current(),
    link,
    openapi: () => buildOpenApi(routes),
    idempotency,
    audit,
    startedAt,
    storageFaults: () => storage.faults,
    workerFaults: () => workers.faults,
    log: options.log,
    metrics,
    services: { events, webhooks, eventStream: options.stream ?? {}, metrics },
    // Open event streams are re-authorized on every change of keys and state (SIGHUP too).
    onSnapshotChange: (listener) => void snapshot.on('change', listener),
    keyUsage,
    ...options.pipeline,
  });
}

/** The daemon's metrics, with every answered /v1 request also counted for GET /admin/v1/status. */
function countingRequests(metrics: DaemonMetrics, requests: RecentRequests): DaemonMetrics {
  return {
    ...metrics,
    httpRequest: (route, method, status, seconds) => {
      requests.count(status);
      metrics.httpRequest(route, method, status, seconds);
    },
  };
}

/** The mod link as the admin API's /status shows it. */
function linkStatus(link: ModLinkServer) {
  const peer = link.peer;
  return { connected: peer !== null, modVersion: peer?.modVersion ?? null, since: peer?.connectedAt ?? null };
}

/** How long GET /admin/v1/status waits for the game's player count before showing none. */
const STATUS_PLAYERS_DEADLINE_MS = 2_000;

/** Players online for GET /admin/v1/status: null with no mod, or when it does not answer in time. */
async function playersOnline(link: ModLinkServer): Promise<number | null> {
  if (link.peer === null) return null;
  try {
    return (await link.call('server.status', {}, { deadlineMs: STATUS_PLAYERS_DEADLINE_MS })).player_count;
  } catch {
    return null;
  }
}

/** prom-client loads only when metrics are on: a daemon without them starts lighter. */
async function prometheusFor(options: DaemonOptions) {
  if (!options.metrics) return null;
  return (await import('./metrics/prometheus.ts')).createPrometheusMetrics(packageJson.version);
}

/** The mod link's server, trusting the data dir's mod keys as they are now, counted in `metrics`. */
function createLink(options: DaemonOptions, snapshot: LiveSnapshot, metrics: DaemonMetrics): ModLinkServer {
  const { identity } = snapshot.current();
  const link = new ModLinkServer({
    identity: { publicKey: identity.daemonPublicKey, secretKey: identity.daemonSecretKey },
    trustedModKeys: () => snapshot.current().trustedModKeys,
    log: options.log,
    addressKey: edgeSubject, // an IPv6 /64 is one address, as for the API's per-address limit
    acceptEvents: true,
    ...options.link,
  });
  // The link server logs mod_connected / mod_disconnected and every rejected handshake itself.
  link.on('connect', () => metrics.modLink(true));
  link.on('disconnect', () => metrics.modLink(false));
  return link;
}

/** What a change of the data dir takes away at once rather than at its next use. */
function revokeOnChange(
  snapshot: LiveSnapshot,
  webhooks: WebhookService,
  link: ModLinkServer,
  log: Logger,
): void {
  // A revoked key's endpoints stop when the snapshot changes, not at their next event.
  snapshot.on('change', () => void webhooks.enforceKeys());
  // A mod key removed from mod-keys.json ends the link it holds, not only its next handshake.
  snapshot.on('change', () => {
    if (link.revokeUntrusted())
      log.warn('mod link closed: its key is no longer trusted', { event: 'mod_key_revoked' });
  });
}

/**
 * mod-credentials.json tells the mod where to dial; `init --mod-listen` writes it. A port other
 * than the one the link listens on means the mod will never connect: say so loudly at start.
 */
async function warnOnCredentialsUrl(dataDir: DataDir, modLink: HostPort, log: Logger): Promise<void> {
  const credentials = await dataDir.read(modCredentialsFile).catch(() => null);
  if (!credentials) return;
  const url = new URL(credentials.url);
  const port = Number(url.port || (url.protocol === 'wss:' ? 443 : 80));
  if (port === modLink.port) return;
  log.warn('mod-credentials.json points the mod at another port than the mod link', {
    event: 'mod_credentials_url_mismatch',
    url: credentials.url,
    mod_link: formatHostPort(modLink),
    fix: `modgate init --data-dir DIR --mod-listen ${formatHostPort(modLink)}, then give the game mod the new file`,
  });
}

/** A listener the daemon has bound (the metrics and admin TCP listeners are optional). */
function isListening(address: HostPort | null | undefined): address is HostPort {
  return address !== null && address !== undefined;
}
