/**
 * The admin listeners' settings and the rule they must pass before anything listens: plain HTTP
 * on loopback only (docs/admin.md, "Listeners"). A leaf, so the CLI can check the rule without
 * loading the admin server.
 */
import { formatHostPort, type HostPort, isLoopbackHost } from '../host-port.ts';
import type { TlsFiles } from '../http/tls-files.ts';
import type { SessionOptions } from './sessions.ts';
import type { TokenBackoffPolicy } from './stages/token-backoff.ts';
import type { AdminStreamLimits } from './admin-event-streams.ts';
import type { AuditReadLimits } from '../log/audit-query.ts';

/** The admin listeners' settings (docs/configuration.md, `[admin]`). */
export interface AdminListenOptions {
  /** The TCP listener; none without it. */
  listen?: HostPort;
  /** Its certificate and key; needed unless `listen` is loopback. */
  tls?: TlsFiles;
  /** Further names the TCP listener answers to in `Host` (a DNS name for its certificate). */
  hostnames?: readonly string[];
  /** Brute-force back-off on bad tokens (defaults in TOKEN_BACKOFF_DEFAULTS). */
  backoff?: Partial<TokenBackoffPolicy>;
  /** The panel's sessions and one-time codes (defaults in DEFAULT_SESSION_OPTIONS). */
  sessions?: Partial<SessionOptions>;
  /** GET /admin/v1/events caps (defaults in ADMIN_STREAM_LIMIT_DEFAULTS). */
  eventStreams?: Partial<AdminStreamLimits>;
  /** GET /admin/v1/audit: a page's time budget and file count (defaults in AUDIT_READ_DEFAULTS). */
  auditRead?: Partial<Omit<AuditReadLimits, 'limit'>>;
}

/** Refuses plain HTTP off loopback before anything listens (the CLI turns it into exit 2). */
export function adminExposureProblem(options: Pick<AdminListenOptions, 'listen' | 'tls'>): string | null {
  if (!options.listen || options.tls || isLoopbackHost(options.listen.host)) return null;
  return (
    `refusing to serve the admin API in plain HTTP on ${formatHostPort(options.listen)} ` +
    '(--admin-listen, [admin] listen): give it a certificate ([admin] tls_cert and tls_key, or the ' +
    "API's --tls-cert and --tls-key), or listen on 127.0.0.1"
  );
}
