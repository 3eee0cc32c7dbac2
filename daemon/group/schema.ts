/**
 * The group's tables in PostgreSQL (docs/group.md), in a schema of their own (`modgate`), created
 * or upgraded by whichever daemon starts first. Every daemon runs `migrate()` at start under one
 * session advisory lock, so fifty daemons starting at once apply each step once and the others
 * wait and find it done. A database whose schema is newer than this daemon knows is refused
 * (SchemaTooNew), naming both versions: an older daemon must not write into tables it does not
 * understand.
 *
 * Tables:
 * - `schema_version`: one row, the version the tables are at.
 * - `servers`: one row per daemon of the group: its server id (identity.json), display name,
 *   whether its daemon and game link were up when last seen, when that was, the kinds it
 *   accepts, and `applied_cursor`, the last sanction id it has dealt with.
 * - `sanctions`: the append-only log, one row per ban, unban, mute or unmute; `id` is the
 *   group's order, and (origin_server, origin_local_id) is unique, so a re-publish is a no-op.
 */
import type pg from 'pg';

/** The newest schema this daemon knows. */
export const SCHEMA_VERSION = 1;

/** `pg_advisory_lock` keys: any two bigints no other application on the database uses. */
export const MIGRATION_LOCK = 0x6d6f_6467_6174_6501n; // "modgate" then 1
export const PUBLISH_LOCK = 0x6d6f_6467_6174_6502n;

/** The channel NOTIFY announces a new sanction on. */
export const CHANNEL = 'modgate_sanctions';

export class SchemaTooNew extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the group's database has schema version ${found}, newer than this modgate knows (${known}): upgrade modgate on this server`,
    );
    this.name = 'SchemaTooNew';
  }
}

/** Each step takes the schema from its index to the next version; only ever appended to. */
const STEPS: readonly string[] = [
  `CREATE TABLE modgate.servers (
     server_id text PRIMARY KEY,
     name text NOT NULL,
     daemon_up boolean NOT NULL DEFAULT true,
     link_up boolean NOT NULL DEFAULT false,
     last_seen_at timestamptz NOT NULL DEFAULT now(),
     accept text[] NOT NULL DEFAULT ARRAY['bans', 'mutes'],
     applied_cursor bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE modgate.sanctions (
     id bigserial PRIMARY KEY,
     action text NOT NULL CHECK (action IN ('ban', 'unban', 'mute', 'unmute')),
     kind text NOT NULL CHECK (kind IN ('bans', 'mutes')),
     platform_id text NOT NULL,
     origin_server text NOT NULL,
     origin_local_id text NOT NULL,
     actor jsonb NOT NULL,
     reason text,
     expires_at timestamptz,
     channels text[],
     created_at timestamptz NOT NULL,
     published_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (origin_server, origin_local_id)
   );
   CREATE INDEX sanctions_player ON modgate.sanctions (platform_id, id);`,
];

/**
 * Creates or upgrades the schema to SCHEMA_VERSION under the migration lock; throws SchemaTooNew
 * when the database is ahead. Returns the version found before (0: none).
 */
export async function migrate(client: pg.ClientBase): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS modgate');
    await client.query('CREATE TABLE IF NOT EXISTS modgate.schema_version (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM modgate.schema_version');
    const found = rows[0]?.version ?? 0;
    if (found > SCHEMA_VERSION) throw new SchemaTooNew(found, SCHEMA_VERSION);
    for (let version = found; version < SCHEMA_VERSION; version++) {
      await client.query('BEGIN');
      try {
        await client.query(STEPS[version] as string);
        if (version === 0) await client.query('INSERT INTO modgate.schema_version (version) VALUES (1)');
        else await client.query('UPDATE modgate.schema_version SET version = $1', [version + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return found;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
}
