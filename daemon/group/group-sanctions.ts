/**
 * The group's sanctions as the admin API shows them (docs/admin.md, "Group sanctions"): pages of the log,
 * newest first, filtered by player, kind and origin server, each with its origin (server name and
 * id, actor, reason) and where every other server stands with it; and a lift, which publishes the
 * opposite sanction (unban, unmute) from this server with the admin as its actor.
 *
 * A server's standing comes from its `applied_cursor` (schema.ts): past the row, it has dealt
 * with it (applied it, or its game refused it: that is the server's `group.sanction.failed`
 * event, docs/events.md); before it, it is pending; a server that does not accept the kind never
 * applies it.
 */
import type pg from 'pg';
import type { SanctionKind } from '../config/config.ts';
import type { Group } from './group.ts';
import { signature, type Sanction, type SanctionAction, type SanctionActor, type Seen } from './sanction.ts';
import { randomUUID } from 'node:crypto';

export interface SanctionFilters {
  platform_id?: string | undefined;
  kind?: SanctionKind | undefined;
  origin?: string | undefined;
}

export type ServerStanding = 'origin' | 'done' | 'pending' | 'not_accepted';

export interface GroupSanction {
  id: string;
  action: SanctionAction;
  kind: SanctionKind;
  platform_id: string;
  origin: { server_id: string; name: string | null; actor: SanctionActor; reason: string | null };
  channels: Sanction['channels'];
  created_at: string;
  expires_at: string | null;
  published_at: string;
  servers: { server_id: string; name: string; state: ServerStanding }[];
  /** The next sanction of the same player and kind, which lifted or replaced this one; null while it is the last. */
  superseded_by: { id: string; action: SanctionAction } | null;
}

interface Row {
  id: string;
  action: SanctionAction;
  kind: SanctionKind;
  platform_id: string;
  origin_server: string;
  origin_name: string | null;
  actor: SanctionActor;
  reason: string | null;
  channels: Sanction['channels'];
  created_at: Date;
  expires_at: Date | null;
  published_at: Date;
  later_id: string | null;
  later_action: SanctionAction | null;
}

interface ServerRow {
  server_id: string;
  name: string;
  accept: SanctionKind[];
  applied_cursor: string;
}

// Each row with the next sanction of its player and kind (sanctions_player serves it): what
// lifted or replaced it, so a reader sees a ban is no longer in force without paging to find out.
const SELECT = `SELECT x.id::text, x.action, x.kind, x.platform_id, x.origin_server, s.name AS origin_name,
    x.actor, x.reason, x.channels, x.created_at, x.expires_at, x.published_at,
    l.id::text AS later_id, l.action AS later_action
  FROM modgate.sanctions x LEFT JOIN modgate.servers s ON s.server_id = x.origin_server
  LEFT JOIN LATERAL (SELECT y.id, y.action FROM modgate.sanctions y
    WHERE y.platform_id = x.platform_id AND y.kind = x.kind AND y.id > x.id ORDER BY y.id LIMIT 1) l ON true`;

/**
 * One page, newest first, after the id `before` (the previous page's last; null: the newest).
 * Reads `limit + 1` rows to know whether there is more. Null when the database is unreachable.
 */
export async function sanctionsPage(
  group: Group,
  filters: SanctionFilters,
  before: bigint | null,
  limit: number,
): Promise<{ data: GroupSanction[]; next: string | null } | null> {
  return group.query(async (client) => {
    const { rows } = await client.query<Row>(
      `${SELECT}
       WHERE ($1::bigint IS NULL OR x.id < $1) AND ($2::text IS NULL OR x.platform_id = $2)
         AND ($3::text IS NULL OR x.kind = $3) AND ($4::text IS NULL OR x.origin_server = $4)
       ORDER BY x.id DESC LIMIT $5`,
      [
        before?.toString() ?? null,
        filters.platform_id ?? null,
        filters.kind ?? null,
        filters.origin ?? null,
        limit + 1,
      ],
    );
    const page = rows.slice(0, limit);
    const servers = await serversOf(client);
    const next = rows.length > limit ? (page.at(-1)?.id ?? null) : null;
    return { data: page.map((row) => view(row, servers)), next };
  });
}

async function serversOf(client: pg.Client): Promise<ServerRow[]> {
  const { rows } = await client.query<ServerRow>(
    'SELECT server_id, name, accept, applied_cursor::text FROM modgate.servers ORDER BY name, server_id',
  );
  return rows;
}

function view(row: Row, servers: readonly ServerRow[]): GroupSanction {
  return {
    id: row.id,
    action: row.action,
    kind: row.kind,
    platform_id: row.platform_id,
    origin: { server_id: row.origin_server, name: row.origin_name, actor: row.actor, reason: row.reason },
    channels: row.channels,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    published_at: row.published_at.toISOString(),
    servers: servers.map((server) => ({
      server_id: server.server_id,
      name: server.name,
      state: standing(row, server),
    })),
    superseded_by:
      row.later_id === null || row.later_action === null
        ? null
        : { id: row.later_id, action: row.later_action },
  };
}

function standing(row: Row, server: ServerRow): ServerStanding {
  if (server.server_id === row.origin_server) return 'origin';
  if (!server.accept.includes(row.kind)) return 'not_accepted';
  return BigInt(server.applied_cursor) >= BigInt(row.id) ? 'done' : 'pending';
}

/** Why a sanction cannot be lifted, or null when it can. */
export type LiftRefusal =
  | { reason: 'not_found' }
  | { reason: 'is_lift' }
  | { reason: 'superseded'; by: string }
  | { reason: 'ended' };

interface Found {
  row: Row;
  servers: ServerRow[];
}

/**
 * Lifts sanction `id`: checks it is a ban or mute still in force (no later sanction of the same
 * player and kind, not run out), then publishes its opposite from this server. Resolves with the
 * published sanction and the lifted one, a refusal, or null when the database is unreachable.
 */
export async function liftSanction(
  group: Group,
  id: bigint,
  actor: SanctionActor,
  now: Date,
): Promise<{ lifted: GroupSanction; published: Sanction } | LiftRefusal | null> {
  const found = await group.query(async (client): Promise<LiftRefusal | Found> => {
    const { rows } = await client.query<Row>(`${SELECT} WHERE x.id = $1`, [id.toString()]);
    const row = rows[0];
    if (row === undefined) return { reason: 'not_found' };
    return { row, servers: await serversOf(client) };
  });
  if (found === null || 'reason' in found) return found;
  const { row, servers } = found;
  if (row.action === 'unban' || row.action === 'unmute') return { reason: 'is_lift' };
  if (row.later_id !== null) return { reason: 'superseded', by: row.later_id };
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return { reason: 'ended' };
  const seen = opposite(row, actor, now);
  await group.publish(seen);
  return { lifted: view(row, servers), published: seen.sanction };
}

function opposite(row: Row, actor: SanctionActor, now: Date): Seen {
  const action = row.action === 'ban' ? 'unban' : 'unmute';
  const sanction: Sanction = {
    local_id: randomUUID(),
    action,
    platform_id: row.platform_id,
    actor,
    reason: null,
    expires_at: null,
    channels: null,
    created_at: now.toISOString(),
  };
  // The signature an unban's answer and event carry, so the local application is not published again.
  return { sanction, signature: signature(action, row.platform_id, null) };
}
