/**
 * A NOTIFY payload that carries the sanction it announces (docs/group.md, "When the database is
 * down"; docs/performance.md, "Group mode"): the row as published, with the id of the row before
 * it in the group's order. A receiver whose cursor is that previous id applies it as it is,
 * without reading the log; any gap (a reconnection, a payload it could not read, a row too big
 * for one) sends it to the log, which stays the one source of truth. On every NOTIFY every server
 * of the group used to run the same query at once: at 20 servers, 19 for each sanction.
 */
import { SANCTION_ACTIONS, type Sanction, type SanctionRow } from './sanction.ts';

/** PostgreSQL refuses a payload of 8000 bytes or more; a bigger row is announced empty. */
const MAX_PAYLOAD_BYTES = 7_900;

/** An announced row and the id of the row before it in the group's order. */
export type Announced = SanctionRow & { previous: string };

/** The payload announcing `sanction`, published as row `id` after row `previous` by `server`. */
export function toNotice(
  { id, previous }: { id: string; previous: string },
  server: { id: string; name: string },
  sanction: Sanction,
): string {
  const payload = JSON.stringify({
    id,
    previous,
    action: sanction.action,
    platform_id: sanction.platform_id,
    origin_server: server.id,
    origin_name: server.name,
    actor: sanction.actor,
    reason: sanction.reason,
    expires_at: sanction.expires_at,
    channels: sanction.channels,
    created_at: sanction.created_at,
  });
  return Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES ? payload : '';
}

/** The row a payload announces, or null when it carries none it can trust (then the log is read). */
export function fromNotice(payload: string): Announced | null {
  if (payload === '') return null;
  let notice: Record<string, unknown>;
  try {
    notice = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return null;
  }
  const { id, previous, action, created_at: createdAt, expires_at: expiresAt } = notice;
  if (typeof id !== 'string' || typeof previous !== 'string' || typeof createdAt !== 'string') return null;
  if (!SANCTION_ACTIONS.includes(action as never)) return null;
  const sanction = notice as unknown as Sanction & { origin_server: string; origin_name: string };
  return {
    id,
    previous,
    action: sanction.action,
    kind: sanction.action === 'ban' || sanction.action === 'unban' ? 'bans' : 'mutes',
    platform_id: sanction.platform_id,
    origin_server: sanction.origin_server,
    origin_name: sanction.origin_name,
    actor: sanction.actor,
    reason: sanction.reason,
    expires_at: typeof expiresAt === 'string' ? new Date(expiresAt) : null,
    channels: sanction.channels,
    created_at: new Date(createdAt),
    superseded: false,
  };
}

/**
 * `rows` with `superseded` set where a later one of them names the same player and kind, as the
 * log's query says (group.ts, ROWS_QUERY): an announced row was the newest when published, so
 * only rows announced after it can supersede it.
 */
export function markSuperseded(rows: SanctionRow[]): SanctionRow[] {
  const later = new Set<string>();
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index] as SanctionRow;
    const key = `${row.kind} ${row.platform_id}`;
    rows[index] = { ...row, superseded: later.has(key) };
    later.add(key);
  }
  return rows;
}
