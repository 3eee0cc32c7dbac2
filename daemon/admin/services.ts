/**
 * The running daemon's parts an admin handler may use (docs/admin.md). One field per part, each
 * with what it is for; a resource that needs another part adds one line here.
 */
import type { FileEventLog } from '../events/event-log.ts';
import type { WebhookService } from '../events/webhooks/webhook-service.ts';
import type { AuditLog } from '../log/audit-log.ts';
import type { DataDir, Snapshot, SnapshotPart } from '../store/data-dir.ts';
import type { KeyUsageRecorder } from '../store/key-usage-recorder.ts';
import type { AdminTokens } from './admin-tokens.ts';
import type { RecentRequests } from './recent-requests.ts';
import type { SessionStore } from './sessions.ts';
import type { AdminEventStreams } from './admin-event-streams.ts';
import type { AuditPages } from '../log/audit-query.ts';
import type { Pipeline } from '../http/pipeline.ts';
import type { Group } from '../group/group.ts';

/** The mod link as GET /admin/v1/status shows it. */
export interface LinkStatus {
  connected: boolean;
  modVersion: string | null;
  /** When the current link was established; null while no mod is connected. */
  since: Date | null;
}

/** The panel's part of AdminServices: what the session routes use. */
export interface PanelServices {
  sessions: SessionStore;
  /** Whether the admin TCP listener serves TLS (the cookie's Secure flag and name). */
  tls: boolean;
  /** `http://HOST:PORT` of the admin TCP listener, or null when there is none. */
  url(): string | null;
}

/** What a reload asked for over the admin API reports besides its success. */
export interface ReloadOutcome {
  /** Settings changed in the config file that take effect at the next restart (dotted names). */
  restartNeeded: readonly string[];
}

export interface AdminServices {
  /** The data dir, opened and trust-checked: read and `update` its files here. */
  dataDir: DataDir;
  /** What the daemon serves from now: identity, state, keys. */
  snapshot(): Snapshot;
  /**
   * Reads the file a handler's `dataDir.update(...)` wrote into the running daemon now, so the
   * change takes effect before the handler answers. Only that file: a broken or hand-edited
   * other file is left to the next reload. Resolves with the snapshot now served; rejects with a
   * StoreError when the file cannot be read back (the pipeline answers 409 `conflict`).
   */
  apply(part: SnapshotPart): Promise<Snapshot>;
  /** When the daemon started. */
  startedAt: Date;
  /** The mod link's state. */
  link(): LinkStatus;
  /** Players online as the game reports them (`server.status`); null when it cannot say. */
  playersOnline(): Promise<number | null>;
  /** The durable event log (its position for /status; the admin event stream reads it). */
  events: FileEventLog;
  /** The webhook registry and its delivery workers. */
  webhooks: WebhookService;
  /** The audit log every admin write is recorded in. */
  audit: AuditLog;
  /** Admin tokens: verification, and who to tell when one is revoked (onRevoked). */
  tokens: AdminTokens;
  /** Requests answered over the last hour by status class (both APIs). */
  requests: RecentRequests;
  /** The panel's sessions and one-time codes, and where the panel is (set by admin-server.ts). */
  panel: PanelServices;
  /** When and from where each API key last authenticated on /v1 (GET /admin/v1/keys). */
  keyUsage: KeyUsageRecorder;
  /**
   * POST /admin/v1/reload: the files, certificates and settings read again, as SIGHUP does;
   * rejects with the reason when a broken file refused it (nothing changed then).
   */
  reload(): Promise<ReloadOutcome>;
  /** GET /admin/v1/events: its streams, their caps, and their cut when a token is revoked. */
  eventStreams: AdminEventStreams;
  /** Group mode (GET /admin/v1/group, docs/group.md): null when no `[group]` is configured. */
  group(): Group | null;
  /** The /v1 pipeline's handlers, which the game routes run (routes/game.ts, docs/admin.md "Game routes"). */
  game: Pick<Pipeline, 'runGame'>;
  /** GET /admin/v1/audit's pages, within the `[admin]` limits (log/audit-query.ts auditPageReader). */
  auditPages: AuditPages;
  /**
   * The clock the key, token, plan and webhook routes read; the system's unless set. The CLI's
   * in-process admin sets the command's own (its tests run it at a given instant).
   */
  now?: () => Date;
}

/** Now, by the clock `admin` reads. */
export function adminNow(admin: AdminServices): Date {
  return admin.now?.() ?? new Date();
}
