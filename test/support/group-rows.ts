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

export async function publishElsewhere(
  cluster: PostgresCluster,
  database: string,
  row: ElsewhereRow,
  options: { announce?: boolean } = {},
): Promise<void> {
  const actor = {
    name: row.actor ?? 'elsewhere',
    key_id: null,
    platform_id: null,
    social_id: null,
    source: 'api',
  };
  await cluster.query(
    database,
    `WITH row AS (INSERT INTO modgate.sanctions (action, kind, platform_id, origin_server, origin_local_id, actor, reason, expires_at, created_at)
       VALUES ($1, $2, $3, $4, gen_random_uuid()::text, $5, $6, $7, COALESCE($8::timestamptz, now()))
       RETURNING id)
     SELECT CASE WHEN $9::boolean THEN pg_notify($10, '') END FROM row`,
    [
      row.action,
      kindOf(row.action),
      row.platform_id,
      row.origin ?? 'srv_elsewhere',
      JSON.stringify(actor),
      row.reason ?? 'made elsewhere',
      row.expires_at ?? null,
      row.created_at ?? null,
      options.announce ?? true,
      CHANNEL,
    ],
  );
}
