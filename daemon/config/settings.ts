/**
 * From a validated config (and the command line) to what the daemon takes. Precedence:
 * command-line flag, then environment (MODGATE_LISTEN, MODGATE_MOD_LISTEN: the systemd template
 * sets these per instance), then the config file, then the default.
 */
import type { DaemonOptions, ReloadSettings } from '../daemon.ts';
import { parseHostPort, type HostPort } from '../host-port.ts';
import { STREAM_LIMIT_DEFAULTS } from '../http/stream-slots.ts';
import type { OpName } from '../../protocol/ops/index.ts';
import { normaliseAllowIp } from '../store/allow-ip.ts';
import { ConfigError, type Config } from './config.ts';

export const DEFAULT_LISTEN = '127.0.0.1:8787';
export const DEFAULT_MOD_LISTEN = '127.0.0.1:8788';

export interface ServeFlags {
  listen?: HostPort;
  modListen?: HostPort;
  tlsCert?: string;
  tlsKey?: string;
  metricsListen?: HostPort;
  /** Canonical CIDR ranges; given, they replace the config file's `[metrics] allow`. */
  metricsAllow?: readonly string[];
  adminListen?: HostPort;
}

export function daemonOptions(
  config: Config,
  flags: ServeFlags,
  env: Readonly<Record<string, string | undefined>>,
): Omit<DaemonOptions, 'dataDir' | 'log'> {
  const fromEnv = (name: string) => {
    const text = env[name];
    if (!text) return undefined;
    try {
      return parseHostPort(text);
    } catch (error) {
      throw new ConfigError(`environment variable ${name}`, [(error as Error).message]);
    }
  };
  const tlsCert = flags.tlsCert ?? config.api.tls_cert;
  const tlsKey = flags.tlsKey ?? config.api.tls_key;
  const { api, mod_link: link } = config;
  return {
    listen: flags.listen ?? fromEnv('MODGATE_LISTEN') ?? api.listen ?? parseHostPort(DEFAULT_LISTEN),
    modListen:
      flags.modListen ?? fromEnv('MODGATE_MOD_LISTEN') ?? link.listen ?? parseHostPort(DEFAULT_MOD_LISTEN),
    ...(tlsCert && tlsKey ? { tls: { certFile: tlsCert, keyFile: tlsKey } } : {}),
    ...metricsOptions(config, flags),
    pipeline: {
      ...reloadSettings(config),
      ...(api.body_limit_bytes !== undefined ? { bodyLimitBytes: api.body_limit_bytes } : {}),
      streamLimits: {
        ...STREAM_LIMIT_DEFAULTS,
        ...defined({
          maxPerKey: config.events.stream_max_per_key,
          maxPerAddress: config.events.stream_max_per_address,
        }),
      },
    },
    http: defined({
      headersTimeoutMs: api.headers_timeout_ms,
      requestTimeoutMs: api.request_timeout_ms,
      keepAliveTimeoutMs: api.keep_alive_timeout_ms,
      maxConnections: api.max_connections,
      maxConnectionsPerAddress: api.max_connections_per_address,
      ipv6PrefixLength: api.ipv6_prefix_length,
      firstByteTimeoutMs: api.first_byte_timeout_ms,
      trustedProxies: api.trusted_proxies,
    }),
    link: defined({
      heartbeatMs: link.heartbeat_ms,
      heartbeatTimeoutMs: link.heartbeat_timeout_ms,
      handshakeTimeoutMs: link.handshake_timeout_ms,
      maxConnections: link.max_pending,
      maxConnectionsPerAddress: link.max_pending_per_address,
    }),
    ...(api.shutdown_drain_ms !== undefined ? { drainMs: api.shutdown_drain_ms } : {}),
    events: defined({
      maxEvents: config.events.max_events,
      maxAgeMs:
        config.events.max_age_hours === undefined ? undefined : config.events.max_age_hours * 3_600_000,
      segmentBytes: config.events.segment_max_bytes,
    }),
    eventLimits: defined({
      maxEventBytes: config.events.mod_max_event_bytes,
      maxBatchBytes: config.events.mod_max_batch_bytes,
      eventsPerSecond: config.events.mod_events_per_second,
      eventsBurst: config.events.mod_events_burst,
      bytesPerSecond: config.events.mod_bytes_per_second,
      bytesBurst: config.events.mod_bytes_burst,
    }),
    stream: defined({
      heartbeatMs: config.events.stream_heartbeat_ms,
      maxBufferedBytes: config.events.stream_max_buffered_bytes,
    }),
    webhookNetwork: { allowNetworks: webhookAllowNetworks(config) },
    ...(config.group
      ? {
          group: {
            databaseUrl: config.group.database_url,
            ...(config.group.name !== undefined ? { name: config.group.name } : {}),
            share: config.group.share,
            accept: config.group.accept,
          },
        }
      : {}),
    admin: adminOptions(
      config,
      flags,
      tlsCert && tlsKey ? { certFile: tlsCert, keyFile: tlsKey } : undefined,
    ),
  };
}

/**
 * The admin listeners: TCP from the flag, then `[admin] listen` (none by default); its
 * certificate is `[admin] tls_cert`/`tls_key`, else the API's own pair (docs/admin.md).
 */
function adminOptions(
  config: Config,
  flags: ServeFlags,
  apiTls: { certFile: string; keyFile: string } | undefined,
): NonNullable<DaemonOptions['admin']> {
  const { admin } = config;
  const listen = flags.adminListen ?? admin.listen;
  const own =
    admin.tls_cert && admin.tls_key ? { certFile: admin.tls_cert, keyFile: admin.tls_key } : undefined;
  const tls = own ?? apiTls;
  return {
    ...(listen ? { listen } : {}),
    ...(tls ? { tls } : {}),
    hostnames: admin.hostnames,
    ...(admin.max_token_failures !== undefined ? { backoff: { maxFailures: admin.max_token_failures } } : {}),
    ...nonEmpty('sessions', {
      ttlMs: times(admin.session_hours, 3_600_000),
      maxSessions: admin.max_sessions,
      codeTtlMs: times(admin.login_code_minutes, 60_000),
      maxCodes: admin.max_login_codes,
    }),
    ...nonEmpty('eventStreams', {
      maxPerActor: admin.events_max_per_admin,
      maxTotal: admin.events_max_total,
    }),
    ...nonEmpty('auditRead', { budgetMs: admin.audit_page_budget_ms }),
  };
}

/** The metrics listener: the flag, then `[metrics] listen`; off when neither is set. */
function metricsOptions(config: Config, flags: ServeFlags): Pick<DaemonOptions, 'metrics'> {
  const listen = flags.metricsListen ?? config.metrics.listen;
  if (listen === undefined) return {};
  const allow = flags.metricsAllow?.length ? flags.metricsAllow : config.metrics.allow;
  return { metrics: { listen, allow: allow.map((entry) => normaliseAllowIp(entry) ?? entry) } };
}

/** The settings a SIGHUP applies without a restart (docs/configuration.md). */
export function reloadSettings(config: Config): ReloadSettings {
  const policy = (p: { limit: number; window_sec: number } | undefined) =>
    p ? { limit: p.limit, windowSec: p.window_sec } : undefined;
  return defined({
    keyRateLimit: policy(config.rate_limit.per_key),
    edgeRateLimit: policy(config.rate_limit.per_address),
    opDeadlines: config.mod_link.op_deadlines_ms as Partial<Record<OpName, number>>,
    trustedProxies: config.api.trusted_proxies,
    webhookAllowNetworks: webhookAllowNetworks(config),
  });
}

/**
 * What reloadSettings() applies, and the log level the reload sets: a config file change to any
 * other setting takes effect at the next restart (docs/configuration.md,
 * "SIGHUP: what reloads, and what needs a restart").
 */
const RELOADABLE = [
  'rate_limit',
  'mod_link.op_deadlines_ms',
  'api.trusted_proxies',
  'webhooks.allow_networks',
  'log.level',
];

/**
 * The settings, as dotted names (`admin.max_sessions`), whose value differs between the config
 * the daemon started with and `now` and that a reload does not apply: a reload names them, so an
 * operator does not take "reloaded" for "in force".
 */
export function settingsNeedingRestart(started: Config, now: Config): string[] {
  const [before, after] = [flatten(started), flatten(now)];
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .filter((name) => before.get(name) !== after.get(name))
    .filter((name) => !RELOADABLE.some((prefix) => name === prefix || name.startsWith(`${prefix}.`)))
    .sort();
}

/** Every setting of a parsed config by its file name (`[section] key`), its value as JSON. */
function flatten(config: Config): Map<string, string> {
  const settings = new Map<string, string>();
  for (const [section, values] of Object.entries(config)) {
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      if (value !== undefined) settings.set(`${section}.${key}`, JSON.stringify(value));
    }
  }
  return settings;
}

/** `[webhooks] allow_networks` in canonical form (`10.1.2.3/8` is `10.0.0.0/8`). */
function webhookAllowNetworks(config: Config): string[] {
  return config.webhooks.allow_networks.map((entry) => normaliseAllowIp(entry) ?? entry);
}

/** Drops undefined values, so they never override a default. */
function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

/** `value` in another unit (hours as ms), or undefined when it is not set. */
function times(value: number | undefined, factor: number): number | undefined {
  return value === undefined ? undefined : value * factor;
}

/** `{[name]: the set fields}`, or nothing when none is set (an options bag keeps its defaults). */
function nonEmpty<N extends string, T extends Record<string, unknown>>(name: N, value: T) {
  const set = defined(value);
  return (Object.keys(set).length === 0 ? {} : { [name]: set }) as { [K in N]?: typeof set };
}
