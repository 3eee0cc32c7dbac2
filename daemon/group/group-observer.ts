/**
 * What this server's part in a group tells the rest of the daemon (docs/group.md, "Seeing the
 * group"): each sanction from the group its game applied or refused becomes a
 * `group.sanction.applied` or `group.sanction.failed` event in the event log, and so reaches the
 * event streams and webhooks (docs/events.md); and, when metrics are on, the propagation lag
 * the database's failures and where the rows of the log came from are recorded (group-metrics.ts, docs/metrics.md, "Group mode").
 */
import type { FileEventLog } from '../events/event-log.ts';
import type { Logger } from '../log/log.ts';
import type { SanctionRow } from './sanction.ts';

export interface GroupObserver {
  /** The game applied `row` at `now` (ms). */
  applied(row: SanctionRow, now: number): void;
  /** The game refused `row` with `error`. */
  failed(row: SanctionRow, error: string, now: number): void;
  /** A connection attempt or a query on the group's database failed. */
  databaseError(): void;
  /**
   * `rows` rows of the log taken to apply: from NOTIFY payloads (notice.ts), or read by a query
   * (a reconnection, a gap, the idle read). An operator sees whether the payloads do their work.
   */
  received(via: ReceivedVia, rows: number): void;
}

/** Where rows of the group's log came from: a NOTIFY payload, or a query of the log. */
export type ReceivedVia = 'notice' | 'query';

/** The metrics part (group-metrics.ts): absent when the daemon has no metrics listener. */
export interface GroupObserverMetrics {
  lagSeconds(seconds: number): void;
  databaseError(): void;
  received(via: ReceivedVia, rows: number): void;
}

export function groupObserver(
  events: Pick<FileEventLog, 'append'>,
  log: Logger,
  metrics: GroupObserverMetrics | null,
): GroupObserver {
  const record = (type: 'group.sanction.applied' | 'group.sanction.failed', data: Record<string, unknown>) =>
    void events
      .append({ type, data })
      .catch((error: unknown) => log.error('event not stored', { type, error }));
  return {
    applied(row, now) {
      const lagMs = Math.max(0, now - row.created_at.getTime());
      metrics?.lagSeconds(lagMs / 1000);
      record('group.sanction.applied', { ...eventData(row), lag_ms: lagMs });
    },
    failed(row, error) {
      record('group.sanction.failed', { ...eventData(row), error });
    },
    databaseError() {
      metrics?.databaseError();
    },
    received(via, rows) {
      metrics?.received(via, rows);
    },
  };
}

/** The event's data: the sanction as the group's log has it, with its origin. */
function eventData(row: SanctionRow): Record<string, unknown> {
  return {
    sanction_id: row.id,
    action: row.action,
    platform_id: row.platform_id,
    origin: {
      server_id: row.origin_server,
      name: row.origin_name,
      actor: { name: row.actor.name, source: row.actor.source },
    },
    reason: row.reason,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
