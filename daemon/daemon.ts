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
import { ModLinkServer, type LinkLimits } from '../protocol/link-server.ts';
import { AuditLog } from './log/audit-log.ts';
import { auditPageReader } from './log/audit-query.ts';
import { formatHostPort, type HostPort } from './host-port.ts';
import { addressGrouping } from './http/client-address.ts';
import { startHttpServer, type HttpLimits, type HttpServerHandle } from './http/node-adapter.ts';
import { readTls, watchTls, type TlsFiles, type TlsPair } from './http/tls-files.ts';
import {
  createPipeline,
  type Pipeline,
  type PipelineOptions,
  type PipelineSettings,
} from './http/pipeline.ts';
import type { EventLimits } from './events/event-limits.ts';
import { recordLinkEvents } from './events/ingest.ts';
import { OpenedSoFar } from './opened-so-far.ts';
import { FileEventLog, type EventRetention } from './events/event-log.ts';
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
import type { OpName } from '../protocol/ops/index.ts';
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
import { SessionStore } from './admin/sessions.ts';
import { Hook, wireReactions } from './reactions.ts';
import type { Group, GroupSettings } from './group/group.ts';
import type { Registry } from 'prom-client';

/** Pipeline limits and policies (rate limits, body cap, stream caps); the defaults are the product's. */
export type PipelineTuning = Partial<
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

export interface DaemonOptions {
  // Where the daemon's files are, where it listens, where it logs.
  dataDir: string;
  listen: HostPort;
  modListen: HostPort;
  tls?: TlsFiles;
  log: Logger;
  /** The metrics listener (docs/metrics.md); without it nothing is counted. */
  metrics?: MetricsListenOptions;
  /** The admin API: admin.sock always, TCP when `listen` is set (docs/admin.md). */
  admin?: AdminListenOptions;

  // The /v1 API (docs/pipeline.md).
  routes?: readonly AnyRoute[];
  pipeline?: PipelineTuning;
  http?: HttpLimits;
  /** How long close() lets in-flight requests finish before cutting them; default 10 s. */
  drainMs?: number;
  /** How often key uses are written to key-usage.json (docs/data-dir.md); tests shrink it. */
  keyUsage?: { flushDelayMs?: number };

  link?: LinkLimits;

  /** `[group]`: share moderation with the other servers of a group (docs/group.md); absent, none. */
  group?: GroupSettings;

  // Events (docs/events.md): the log, what the mod may send into it, its readers.
  events?: EventRetention;
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
  /** Group mode (docs/group.md), or null when no `[group]` is configured. */
  group: Group | null;
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

/** startDaemon's steps once the data dir's daemon lock is held; what a step opened, a failure closes. */
async function startLocked(
  options: DaemonOptions,
  dataDir: DataDir,
  daemonLock: HeldDaemonLock,
): Promise<Daemon> {
  const parts = await openStores(options, dataDir, daemonLock);
  let admin: AdminServer | undefined;
  let api: ApiListener | undefined;
  try {
    const modLink = await startLink(options, parts);
    const running: { daemon?: Daemon } = {};
    // Built before the admin API, whose game routes run its handlers (docs/admin.md, "Game routes").
    const pipeline = daemonPipeline(options, parts);
    admin = await startAdmin(options, parts, pipeline, () =>
      running.daemon
        ? requestedReload(options, running.daemon)
        : Promise.reject(new Error('the daemon is still starting')),
    );
    api = await startApi(options, pipeline);
    const bound = [api.server.address, modLink, parts.metricsServer?.address, admin.address];
    parts.ownListeners.splice(0, parts.ownListeners.length, ...bound.filter(isListening));
    running.daemon = daemonHandle(options, parts, { modLink, admin, api });
    return running.daemon;
  } catch (error) {
    await admin?.close(0);
    await api?.server.close(0);
    await parts.close();
    throw error;
  }
}

/** What startDaemon opens before anything listens (the stores, the link server), closed last. */
interface DaemonParts {
  dataDir: DataDir;
  snapshot: LiveSnapshot;
  log: Logger;
  startedAt: Date;
  /** prom-client's registry, when metrics are on. */
  prometheus: Awaited<ReturnType<typeof prometheusFor>>;
  metrics: DaemonMetrics;
  requests: RecentRequests;
  tokens: AdminTokens;
  /** The panel's sessions, kept in admin-sessions.json across restarts. */
  sessions: SessionStore;
  link: ModLinkServer;
  storage: StorageHealth;
  workers: WorkerHealth;
  journal: IdempotencyJournal;
  idempotency: Idempotency;
  audit: AuditLog;
  keyUsage: KeyUsageRecorder;
  events: FileEventLog;
  webhooks: WebhookService;
  group: Group | null;
  /** The /v1 pipeline's open event streams, re-authorized by a reaction (daemon/reactions.ts). */
  apiStreams: Hook;
  /** The daemon's own listeners, which no webhook may reach: as configured, then as bound (port 0 made real). */
  readonly ownListeners: HostPort[];
  metricsServer?: MetricsServer;
  /** What else close() stops first (the reactions). */
  unwire: (() => void)[];
  close(): Promise<void>;
}

/**
 * Step 1: the snapshot, the stores, the link server (not listening yet) and the webhooks. A step
 * that fails closes what the steps before it opened (daemon/opened-so-far.ts).
 */
async function openStores(
  options: DaemonOptions,
  dataDir: DataDir,
  daemonLock: HeldDaemonLock,
): Promise<DaemonParts> {
  const opened = new OpenedSoFar();
  try {
    return await openStoresKept(options, dataDir, daemonLock, opened);
  } catch (error) {
    await opened.closeAll(options.log);
    throw error;
  }
}

/** The daemon's own listeners as configured (port 0 made real once they are bound). */
function configuredListeners(options: DaemonOptions): HostPort[] {
  return [options.listen, options.modListen, options.metrics?.listen, options.admin?.listen].filter(
    (listen): listen is HostPort => listen !== undefined,
  );
}

/** openStores' steps, each store kept in `opened` as it opens. */
async function openStoresKept(
  options: DaemonOptions,
  dataDir: DataDir,
  daemonLock: HeldDaemonLock,
  opened: OpenedSoFar,
): Promise<DaemonParts> {
  const log = options.log;
  const snapshot = await dataDir.load();
  const { identity } = snapshot.current();
  const prometheus = await prometheusFor(options);
  const requests = new RecentRequests();
  const metrics = countingRequests(prometheus ?? noopMetrics, requests);
  const tokens = opened.keep(
    'admin tokens',
    new AdminTokens({ dataDir, snapshot: () => snapshot.current(), log }),
  );
  const sessions = opened.keep(
    'panel sessions',
    await SessionStore.open(
      dataDir.path,
      {
        tokenActive: (id) => snapshot.current().adminTokensById.get(id)?.revokedAt === null,
        onError: (error) => log.warn('cannot keep panel sessions', { error: (error as Error).message }),
      },
      options.admin?.sessions,
    ),
    (kept) => kept.saved(),
  );
  const link = opened.keep('mod link', createLink(options, snapshot, metrics));
  const storage = new StorageHealth(log);
  const workers = new WorkerHealth();
  const journal = opened.keep(
    'journal',
    await IdempotencyJournal.open(dataDir.path, { log, health: storage }),
  );
  const audit = opened.keep('audit log', await AuditLog.open(dataDir.path, storage));
  const keyUsage = opened.keep(
    'key usage',
    await KeyUsageRecorder.open(dataDir, {
      ...options.keyUsage,
      onError: (error) => log.warn('cannot record key use', { error: (error as Error).message }),
    }),
  );
  const events = opened.keep(
    'event log',
    await FileEventLog.open(dataDir.path, { ...options.events, log, metrics, health: storage }),
  );
  const unwireEvents = opened.keep(
    'event wiring',
    recordLinkEvents(link, events, log, { limits: options.eventLimits, metrics }),
    (unwire) => unwire(),
  );
  const ownListeners = configuredListeners(options);
  const webhooksStarted = WebhookService.start({
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
  const webhooks = opened.keep('webhooks', await webhooksStarted);
  const group = await startGroup(options, {
    serverId: identity.serverId,
    name: identity.name,
    dataDir,
    link,
    events,
    registry: prometheus?.registry ?? null,
  });
  const parts: DaemonParts = {
    dataDir,
    snapshot,
    log,
    startedAt: new Date(),
    prometheus,
    metrics,
    requests,
    tokens,
    sessions,
    link,
    storage,
    workers,
    journal,
    audit,
    keyUsage,
    events,
    webhooks,
    group,
    ownListeners,
    idempotency: new Idempotency(journal, identity.daemonSecretKey),
    apiStreams: new Hook(),
    unwire: [],
    close: () => closeParts(parts, unwireEvents, daemonLock),
  };
  return parts;
}

/**
 * What DaemonParts.close does: the reactions unwired, then each part closed, the daemon lock
 * released last. The link closes while the event log still listens to it, so the link going down
 * is recorded (`mod.disconnected`, docs/events.md) before the log closes.
 */
async function closeParts(parts: DaemonParts, unwireEvents: () => void, daemonLock: HeldDaemonLock) {
  for (const unwire of parts.unwire.splice(0)) unwire();
  await parts.tokens.close();
  await parts.sessions.saved();
  await parts.group?.close();
  await parts.metricsServer?.close();
  await parts.link.close();
  unwireEvents();
  await parts.webhooks.close();
  await parts.events.close();
  await parts.journal.close();
  await parts.audit.close();
  await parts.keyUsage.close();
  await daemonLock.release();
}

/** Step 2: the mod link listens, then the metrics listener. */
async function startLink(options: DaemonOptions, parts: DaemonParts): Promise<HostPort> {
  const { link, log, prometheus } = parts;
  const modLink = await listening('mod_link', options.modListen, () =>
    link.listen(options.modListen.host, options.modListen.port),
  );
  await warnOnCredentialsUrl(parts.dataDir, modLink, log);
  const metricsOptions = options.metrics;
  if (prometheus && metricsOptions) {
    parts.metricsServer = await listening('metrics', metricsOptions.listen, () =>
      startMetricsServer(prometheus.registry, metricsOptions, log),
    );
  }
  return modLink;
}

/**
 * Step 3: the admin API, before the /v1 API, with the reactions to a change wired before it
 * listens. (A second serve on this data dir never gets here: the daemon lock refuses it.)
 */
async function startAdmin(
  options: DaemonOptions,
  parts: DaemonParts,
  game: Pipeline,
  reload: () => Promise<ReloadOutcome>,
): Promise<AdminServer> {
  const {
    dataDir,
    startedAt,
    snapshot,
    link,
    events,
    webhooks,
    audit,
    tokens,
    requests,
    keyUsage,
    sessions,
  } = parts;
  const adminStreams = adminEventStreams(options, parts);
  parts.unwire.push(wireReactions({ ...parts, adminStreams }));
  return startAdminServer({
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
      reload,
      eventStreams: adminStreams,
      game,
      group: () => parts.group,
      auditPages: auditPageReader(dataDir.path, options.admin?.auditRead),
    },
    sessions,
    routes: ADMIN_ROUTES,
    options: options.admin ?? {},
    idempotency: parts.idempotency,
    http: options.http ?? {},
    log: parts.log,
  });
}

/** The /v1 API as it listens: its pipeline, its listener, the certificate it was started with. */
interface ApiListener {
  handle: Pipeline;
  server: HttpServerHandle;
  certificate: TlsPair | undefined;
}

/** Step 4: the /v1 API's listener, serving its pipeline. */
async function startApi(options: DaemonOptions, handle: Pipeline): Promise<ApiListener> {
  const certificate = options.tls ? await readTls(options.tls) : undefined;
  const server = await listening('api', options.listen, () =>
    startHttpServer(handle, { listen: options.listen, tls: certificate, log: options.log, ...options.http }),
  );
  return { handle, server, certificate };
}

/** Step 5: the running daemon's handle: what it listens on, reload() and close(). */
function daemonHandle(
  options: DaemonOptions,
  parts: DaemonParts,
  started: { modLink: HostPort; admin: AdminServer; api: ApiListener },
): Daemon {
  const { link, snapshot, metrics, events, webhooks, keyUsage, startedAt, audit } = parts;
  const { admin } = started;
  const { server: api, handle } = started.api;
  const tls = watchTls(options.tls, api, parts.log, started.api.certificate);
  return {
    api: api.address,
    modLink: started.modLink,
    link,
    snapshot,
    handle,
    metrics,
    events,
    webhooks,
    group: parts.group,
    keyUsage,
    startedAt,
    metricsAddress: parts.metricsServer?.address ?? null,
    admin: { socketPath: admin.socketPath, address: admin.address },
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
      await admin.reload();
      handle.reconfigure(applied);
      if (applied.trustedProxies) api.setTrustedProxies(applied.trustedProxies);
      if (applied.webhookAllowNetworks) webhooks.setAllowNetworks(applied.webhookAllowNetworks);
    },
    close: async () => {
      tls.close();
      const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
      await Promise.all([api.close(drainMs), admin.close(drainMs)]);
      await parts.close();
    },
  };
}

/** What POST /admin/v1/reload runs: serve's reload (its config file read again), else the daemon's own. */
async function requestedReload(options: DaemonOptions, daemon: Daemon): Promise<ReloadOutcome> {
  if (options.reload) return options.reload(daemon);
  await daemon.reload();
  return { restartNeeded: [] };
}

/** GET /admin/v1/events: its streams, with the /v1 stream's settings and the admin caps. */
function adminEventStreams(options: DaemonOptions, parts: DaemonParts): AdminEventStreams {
  return new AdminEventStreams({
    eventLog: parts.events,
    snapshot: () => parts.snapshot.current(),
    ...(options.stream ? { settings: options.stream } : {}),
    ...(options.admin?.eventStreams ? { limits: options.admin.eventStreams } : {}),
    metrics: parts.metrics,
  });
}

/** The request pipeline over this daemon's data dir, mod link and stores. */
function daemonPipeline(options: DaemonOptions, parts: DaemonParts): Pipeline {
  const { idempotency, audit, storage, workers, events, webhooks, keyUsage, metrics } = parts;
  const routes = options.routes ?? ROUTES;
  return createPipeline({
    routes,
    snapshot: () => parts.snapshot.current(),
    link: parts.link,
    openapi: () => buildOpenApi(routes),
    idempotency,
    audit,
    startedAt: parts.startedAt,
    storageFaults: () => storage.faults,
    workerFaults: () => workers.faults,
    log: options.log,
    metrics,
    services: { events, webhooks, eventStream: options.stream ?? {}, metrics },
    // Open event streams are re-authorized on every change of keys and state (reauthorizeApiStreams).
    onSnapshotChange: parts.apiStreams.subscribe,
    keyUsage,
    addressGroup: addressGrouping(options.http?.ipv6PrefixLength),
    ...(parts.group ? { afterWrite: groupTap(parts.group) } : {}),
    ...options.pipeline,
  });
}

/**
 * Group mode, when `[group]` is configured: loaded here and only then (the database client is no
 * part of a lone daemon's start-up). A database schema newer than this daemon is a config error
 * (exit 2); an unreachable database is not (docs/group.md, "When the database is down").
 */
async function startGroup(
  options: DaemonOptions,
  own: {
    serverId: string;
    name: string | null;
    dataDir: DataDir;
    link: ModLinkServer;
    events: FileEventLog;
    registry: Registry | null;
  },
): Promise<Group | null> {
  if (!options.group) return null;
  const { Group: GroupService } = await import('./group/group.ts');
  const { SchemaTooNew } = await import('./group/schema.ts');
  const { groupObserver } = await import('./group/group-observer.ts');
  const metrics = own.registry && (await import('./group/group-metrics.ts')).groupMetrics(own.registry);
  try {
    const group = await GroupService.start({
      observer: groupObserver(own.events, options.log, metrics),
      ...options.group,
      name: options.group.name ?? own.name ?? own.serverId,
      dataDir: own.dataDir.path,
      serverId: own.serverId,
      link: own.link,
      events: own.events,
      log: options.log,
      // A test hook, read once here (docs/group.md, "Testing"): never set in production.
      holdCapture: process.env['MODGATE_TEST_HOLD_GROUP_CAPTURE'] === '1',
    });
    metrics?.watch(group);
    return group;
  } catch (error) {
    if (!(error instanceof SchemaTooNew)) throw error;
    const { ConfigError } = await import('./config/config.ts');
    throw new ConfigError('[group] database_url', [error.message]);
  }
}

/** The pipeline's afterWrite for group mode: moderation answers go to the group's outbox. */
function groupTap(group: Group) {
  return (op: OpName, args: unknown, result: unknown) => group.observeOp(op, args, result);
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
    // An IPv6 /64 (or [api] ipv6_prefix_length) is one address, as for the API's per-address limits.
    addressKey: addressGrouping(options.http?.ipv6PrefixLength),
    acceptEvents: true,
    ...options.link,
  });
  // The link server logs mod_connected / mod_disconnected and every rejected handshake itself.
  link.on('connect', () => metrics.modLink(true));
  link.on('disconnect', () => metrics.modLink(false));
  return link;
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
