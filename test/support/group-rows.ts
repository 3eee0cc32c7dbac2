/**
 * A sanction as a server of the group that is not running in the test published it: a row of
 * the group's log written straight into PostgreSQL, as that server's daemon would, and announced,
 * unless told not to, with a NOTIFY without a payload (as an older modgate sends; a receiver reads
 * the log after its cursor then).
 */
import type { PostgresCluster } from '../../harness/postgres.ts';
import { CHANNEL } from '../../daemon/group/schema.ts';
import { kindOf, type SanctionAction } from '../../daemon/group/sanction.ts';

export interface ElsewhereRow {
  action: SanctionAction;
  platform_id: string;
  /** The origin server's id and its actor's name. */
  origin?: string;
  actor?: string;
  reason?: string;
  /** ISO times; the row's creation is now unless given, and it never expires unless given. */
  expires_at?: string | null;
  created_at?: string;
}

/** One statement for every row (each query is a connection of its own, `PostgresCluster.query`). */
export async function publishElsewhere(
  cluster: PostgresCluster,
  database: string,
  rows: ElsewhereRow | readonly ElsewhereRow[],
  options: { announce?: boolean } = {},
): Promise<void> {
  const values: unknown[] = [options.announce ?? true, CHANNEL];
  const tuples = (Array.isArray(rows) ? rows : [rows]).map((row: ElsewhereRow) => {
    const first = values.length + 1;
    const actor = {
      name: row.actor ?? 'elsewhere',
      key_id: null,
      platform_id: null,
      social_id: null,
      source: 'api',
    };
    values.push(
      row.action,
      kindOf(row.action),
      row.platform_id,
      row.origin ?? 'srv_elsewhere',
      JSON.stringify(actor),
      row.reason ?? 'made elsewhere',
      row.expires_at ?? null,
      row.created_at ?? null,
    );
    const [action, kind, player, origin, actorJson, reason, expires, created] = Array.from(
      { length: 8 },
      (_, i) => `$${first + i}`,
    );
    // Typed, as a VALUES list of several rows is resolved before the columns it goes to; each
    // row's own clock time, as when each was written by a statement of its own.
    return `(${action}, ${kind}, ${player}, ${origin}, gen_random_uuid()::text, ${actorJson}::jsonb, ${reason}, ${expires}::timestamptz, COALESCE(${created}::timestamptz, clock_timestamp()))`;
  });
  await cluster.query(
    database,
    `WITH row AS (INSERT INTO modgate.sanctions (action, kind, platform_id, origin_server, origin_local_id, actor, reason, expires_at, created_at)
       VALUES ${tuples.join(', ')}
       RETURNING id)
     SELECT CASE WHEN $1::boolean THEN pg_notify($2, '') END FROM row`,
    values,
  );
}
