/**
 * The operator's config file (TOML): listen addresses, TLS, trusted proxies, rate limits,
 * timeouts, the mod link and logging. The daemon validates it at start and on SIGHUP, reports
 * every problem with its place in the file, and never writes it. Command-line flags win over the
 * file; the file wins over the defaults (docs/configuration.md).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseToml } from 'smol-toml';
import * as z from 'zod';
import { isOpName } from '../../protocol/ops/index.ts';
import { parseHostPort, type HostPort } from '../host-port.ts';
import { normaliseAllowIp } from '../store/allow-ip.ts';

const hostPort = z.string().transform((text, ctx): HostPort => {
  try {
    return parseHostPort(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const cidr = z.string().refine((text) => normaliseAllowIp(text) !== null, 'an IP address or CIDR range');
const ms = (max: number) => z.number().int().min(1).max(max);
const policy = z
  .object({ limit: z.number().int().min(1), window_sec: z.number().int().min(1).max(86_400) })
  .strict();

/** What a group shares: bans (with unbans) and mutes (with unmutes); docs/group.md, "What is shared". */
export const SANCTION_KINDS = ['bans', 'mutes'] as const;
export type SanctionKind = (typeof SANCTION_KINDS)[number];
const sanctionKinds = z
  .array(z.enum(SANCTION_KINDS))
  .max(SANCTION_KINDS.length)
  .refine((kinds) => new Set(kinds).size === kinds.length, 'each kind once')
  .default([...SANCTION_KINDS]);

/** The sslmode values node-postgres knows (docs/configuration.md); prefer, require and verify-ca act as verify-full. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/**
 * A PostgreSQL URL, checked here without loading the database client (a lone daemon never does):
 * its scheme, a host, and a known sslmode; the client parses the rest when the group starts.
 */
const postgresUrl = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a URL: postgres://user:password@host:5432/database' });
    return;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    ctx.addIssue({ code: 'custom', message: `a postgres:// URL, not ${url.protocol}//` });
  } else if (url.hostname === '' && !url.searchParams.has('host')) {
    ctx.addIssue({ code: 'custom', message: 'names no host' });
  }
  const mode = url.searchParams.get('sslmode');
  if (mode !== null && !SSL_MODES.includes(mode)) {
    ctx.addIssue({ code: 'custom', message: `sslmode must be one of ${SSL_MODES.join(', ')}` });
  }
});

export const ConfigSchema = z
  .object({
    api: z
      .object({
        listen: hostPort.optional(),
        tls_cert: z.string().min(1).optional(),
        tls_key: z.string().min(1).optional(),
        /** Peers whose X-Forwarded-For is believed (a TLS-terminating proxy); nobody else's. */
        trusted_proxies: z.array(cidr).default([]),
        body_limit_bytes: z.number().int().min(1_024).max(16_777_216).optional(),
        max_connections: z.number().int().min(1).max(1_000_000).optional(),
        max_connections_per_address: z.number().int().min(1).max(1_000_000).optional(),
        /** The IPv6 network one client counts as, for every per-address count (a host holds a /64). */
        ipv6_prefix_length: z.number().int().min(32).max(128).optional(),
        first_byte_timeout_ms: ms(600_000).optional(),
        headers_timeout_ms: ms(600_000).optional(),
        request_timeout_ms: ms(3_600_000).optional(),
        keep_alive_timeout_ms: ms(600_000).optional(),
        shutdown_drain_ms: ms(600_000).optional(),
      })
      .strict()
      .default({ trusted_proxies: [] }),
    rate_limit: z.object({ per_key: policy.optional(), per_address: policy.optional() }).strict().default({}),
    mod_link: z
      .object({
        listen: hostPort.optional(),
        heartbeat_ms: ms(600_000).optional(),
        heartbeat_timeout_ms: ms(3_600_000).optional(),
        handshake_timeout_ms: ms(600_000).optional(),
        /** Unauthenticated connections held at once, in total and per address (PROTOCOL §5.2). */
        max_pending: z.number().int().min(1).max(100_000).optional(),
        max_pending_per_address: z.number().int().min(1).max(100_000).optional(),
        /** Per-op deadlines, e.g. { "players.list" = 8000 }. */
        op_deadlines_ms: z
          .record(z.string(), ms(600_000))
          .superRefine((deadlines, ctx) => {
            for (const name of Object.keys(deadlines)) {
              if (!isOpName(name))
                ctx.addIssue({
                  code: 'custom',
                  path: [name],
                  message: 'not an op of the catalogue (protocol/ops)',
                });
            }
          })
          .default({}),
      })
      .strict()
      .default({ op_deadlines_ms: {} }),
    /** The event log and the event stream (docs/events.md). */
    events: z
      .object({
        max_events: z.number().int().min(1).max(100_000_000).optional(),
        max_age_hours: z.number().int().min(1).max(87_600).optional(),
        stream_heartbeat_ms: ms(600_000).optional(),
        stream_max_buffered_bytes: z.number().int().min(1_024).max(1_073_741_824).optional(),
        /** Open event streams per API key and per client address (docs/events.md, "Limits"). */
        stream_max_per_key: z.number().int().min(1).max(100_000).optional(),
        stream_max_per_address: z.number().int().min(1).max(100_000).optional(),
        /** What a mod may send (PROTOCOL §9.5); bytes are msgpack bytes. */
        mod_max_event_bytes: z.number().int().min(1_024).max(1_048_576).optional(),
        mod_max_batch_bytes: z.number().int().min(1_024).max(1_048_576).optional(),
        mod_events_per_second: z.number().int().min(1).max(1_000_000).optional(),
        mod_events_burst: z.number().int().min(1).max(10_000_000).optional(),
        mod_bytes_per_second: z.number().int().min(1_024).max(1_073_741_824).optional(),
        mod_bytes_burst: z.number().int().min(1_024).max(1_073_741_824).optional(),
        /** A segment file rolls over at this size as well as at its count of events. */
        segment_max_bytes: z.number().int().min(65_536).max(1_073_741_824).optional(),
      })
      .strict()
      .default({}),
    /** Where webhooks registered by the operator may point besides public and loopback addresses. */
    webhooks: z
      .object({ allow_networks: z.array(cidr).max(1_000).default([]) })
      .strict()
      .default({ allow_networks: [] }),
    /** The admin API's TCP listener (docs/admin.md); admin.sock needs no setting. */
    admin: z
      .object({
        listen: hostPort.optional(),
        tls_cert: z.string().min(1).optional(),
        tls_key: z.string().min(1).optional(),
        /** Names besides the listen address that `Host` may carry (DNS rebinding defence). */
        hostnames: z
          .array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'a DNS name such as admin.example.net'))
          .max(32)
          .default([]),
        /** Bad admin tokens per client address and minute before 429 (brute-force back-off). */
        max_token_failures: z.number().int().min(1).max(10_000).optional(),
        /** The panel's sessions (docs/admin.md, "The panel"): lifetime and how many are held. */
        session_hours: z.number().int().min(1).max(720).optional(),
        max_sessions: z.number().int().min(1).max(100_000).optional(),
        /** One-time sign-in codes (`modgate admin login-url`): lifetime and how many are unspent. */
        login_code_minutes: z.number().int().min(1).max(60).optional(),
        max_login_codes: z.number().int().min(1).max(10_000).optional(),
        /** GET /admin/v1/events: open streams per admin, and in all (docs/admin.md, "Live events"). */
        events_max_per_admin: z.number().int().min(1).max(1_000).optional(),
        events_max_total: z.number().int().min(1).max(10_000).optional(),
        /** GET /admin/v1/audit: how long one page may read (docs/admin.md, "Audit log"). */
        audit_page_budget_ms: z.number().int().min(10).max(30_000).optional(),
      })
      .strict()
      .default({ hostnames: [] }),
    log: z
      .object({
        level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
        /** json or pretty; unset: JSON under systemd, pretty at a terminal. */
        format: z.enum(['json', 'pretty']).optional(),
      })
      .strict()
      .default({ level: 'info' }),
    /** Group mode (docs/group.md): absent, the daemon stands alone and never loads the database client. */
    group: z
      .object({
        database_url: postgresUrl,
        /** This server's name in the group; default: the data dir's server name. */
        name: z.string().min(1).max(100).optional(),
        /** The sanction kinds this server publishes to the group, and those it applies from it. */
        share: sanctionKinds,
        accept: sanctionKinds,
      })
      .strict()
      .optional(),
    /** The metrics listener (docs/metrics.md): off unless `listen` is set. */
    metrics: z
      .object({ listen: hostPort.optional(), allow: z.array(cidr).default([]) })
      .strict()
      .default({ allow: [] }),
  })
  .strict()
  .superRefine((config, ctx) => {
    if ((config.api.tls_cert === undefined) !== (config.api.tls_key === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['api', 'tls_cert'],
        message: 'tls_cert and tls_key go together',
      });
    }
    if ((config.admin.tls_cert === undefined) !== (config.admin.tls_key === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['admin', 'tls_cert'],
        message: 'tls_cert and tls_key go together',
      });
    }
    if (config.metrics.allow.length > 0 && config.metrics.listen === undefined) {
      ctx.addIssue({ code: 'custom', path: ['metrics', 'allow'], message: 'needs metrics.listen' });
    }
  });

export type Config = z.output<typeof ConfigSchema>;

/** The defaults: what a daemon started without a config file uses. */
export const EMPTY_CONFIG: Config = ConfigSchema.parse({});

export class ConfigError extends Error {
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super(`${path}: ${problems.length === 1 ? problems[0] : `\n  ${problems.join('\n  ')}`}`);
    this.name = 'ConfigError';
  }
}

/** Reads and checks a config file; throws a ConfigError listing every problem. */
export async function loadConfig(path: string): Promise<Config> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [`cannot read it: ${(error as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw new ConfigError(path, [`not valid TOML: ${(error as Error).message.split('\n')[0]}`]);
  }
  const result = ConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(
    path,
    result.error.issues.map((issue) => {
      const where = issue.path.join('.') || '(top level)';
      if (issue.code === 'unrecognized_keys') return `${where}: unknown setting ${issue.keys.join(', ')}`;
      return `${where}: ${issue.message}`;
    }),
  );
}
