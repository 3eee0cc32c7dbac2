/**
 * Doctor, group mode (docs/group.md, "Setup"): with `[group]` in the config file, whether the
 * group's database answers with the URL serve would use, whether its TLS holds (the
 * certificate's chain and name, as `sslmode` asks; or that there is none across a network), and
 * what the daemon would do with the schema it finds: nothing (the same version), create or
 * upgrade it at start (none yet, or older), or refuse to start (newer than this modgate knows).
 * One connection, closed before the answer; nothing is written.
 */
import pg from 'pg';
import { SCHEMA_VERSION } from '../../../daemon/group/schema.ts';
import { fail, ok, warn, type CheckResult } from './check.ts';

const CONNECT_TIMEOUT_MS = 5_000;

/** Error codes of a TLS check that failed: the chain or the name (Node's, as node-postgres passes them). */
const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export async function checkGroup(databaseUrl: string): Promise<CheckResult[]> {
  const url = new URL(databaseUrl);
  const where = `${url.hostname || url.searchParams.get('host') || 'localhost'}:${url.port || 5432}${url.pathname}`;
  const mode = url.searchParams.get('sslmode') ?? 'disable';
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: CONNECT_TIMEOUT_MS,
    application_name: 'modgate doctor',
  });
  client.on('error', () => undefined); // a failure after connecting surfaces in the query
  try {
    await client.connect();
  } catch (error) {
    return [unreachable(error as Error & { code?: string }, where, mode)];
  }
  try {
    return [
      ok('group database', `${where} answers`),
      await tlsOf(client, where, mode, url.hostname),
      await schemaOf(client),
    ];
  } catch (error) {
    return [
      fail(
        'group database',
        `${where}: ${(error as Error).message}`,
        'check the role’s rights on the database',
      ),
    ];
  } finally {
    await client.end().catch(() => undefined);
  }
}

function unreachable(error: Error & { code?: string }, where: string, mode: string): CheckResult {
  if (error.code !== undefined && TLS_CODES.has(error.code))
    return fail(
      'group database tls',
      `${where}: the server's certificate fails sslmode=${mode}: ${error.message}`,
      'give the CA that signed it as sslrootcert=/path/ca.pem in database_url, and connect by the name the certificate carries',
    );
  return fail(
    'group database',
    `${where} does not answer: ${error.message}`,
    'check database_url in [group] (host, port, user, password, database) and that PostgreSQL listens there; the daemon starts anyway and retries',
  );
}

async function tlsOf(client: pg.Client, where: string, mode: string, host: string): Promise<CheckResult> {
  const { rows } = await client.query<{ ssl: boolean; version: string | null }>(
    'SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
  );
  const tls = rows[0]?.ssl === true;
  if (tls && mode === 'verify-full')
    return ok(
      'group database tls',
      `${rows[0]?.version ?? 'TLS'}, the certificate's chain and name verified`,
    );
  if (tls)
    return warn(
      'group database tls',
      `${rows[0]?.version ?? 'TLS'} with sslmode=${mode}: the server's name is not checked`,
      'use sslmode=verify-full with sslrootcert= in database_url',
    );
  if (isLoopback(host)) return ok('group database tls', 'none, over loopback');
  return warn(
    'group database tls',
    `${where}: no TLS across the network: sanctions and the password travel in clear`,
    'enable ssl on the server and use sslmode=verify-full with sslrootcert= in database_url',
  );
}

function isLoopback(host: string): boolean {
  return (
    host === '' || host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host.startsWith('/')
  );
}

async function schemaOf(client: pg.Client): Promise<CheckResult> {
  const { rows: tables } = await client.query<{ found: string | null }>(
    "SELECT to_regclass('modgate.schema_version')::text AS found",
  );
  if (tables[0]?.found === null || tables[0] === undefined)
    return ok('group schema', `none yet: the first daemon creates it (version ${SCHEMA_VERSION})`);
  const { rows } = await client.query<{ version: number }>('SELECT version FROM modgate.schema_version');
  const found = rows[0]?.version ?? 0;
  if (found === SCHEMA_VERSION) return ok('group schema', `version ${found}, as this modgate knows`);
  if (found < SCHEMA_VERSION)
    return ok('group schema', `version ${found}: this modgate upgrades it to ${SCHEMA_VERSION} at start`);
  return fail(
    'group schema',
    `version ${found}, newer than this modgate knows (${SCHEMA_VERSION}): serve refuses to start (exit 2)`,
    'upgrade modgate on this server to the version the rest of the group runs',
  );
}
