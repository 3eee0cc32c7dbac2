/**
 * A throwaway PostgreSQL cluster for group mode's tests and benchmark (docs/group.md): Debian's
 * server binaries (`/usr/lib/postgresql/<version>/bin`), initialised in a fresh temp folder as the
 * unprivileged `postgres` user (initdb refuses root, and tests run as root), listening on a free
 * loopback port with its unix socket in that folder, and TLS on with a CA of its own so
 * `sslmode=verify-full` can be tested. Readiness is pg_ctl's own `-w` (it waits for the server to
 * accept connections), never a sleep.
 *
 * A test file checks `postgresAvailable(file)` first: without the binaries it skips and says why,
 * unless MODGATE_REQUIRE_POSTGRES=1 (.ci/run), which turns the skip into a failure, as
 * MODGATE_REQUIRE_TMPFS does for harness/tmpfs.ts.
 */
import { execFile } from 'node:child_process';
import { appendFile, chown, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';

const run = promisify(execFile);

export interface PostgresAvailability {
  /** The server binaries' folder, or null when none is installed. */
  readonly binDir: string | null;
  /** Whether the test must run: installed, or required (then it fails when it starts none). */
  readonly run: boolean;
}

/** Where initdb is, newest version first; says on stderr, naming `testFile`, when there is none. */
export function postgresAvailable(testFile: string): PostgresAvailability {
  const binDir = findBinDir();
  const required = process.env['MODGATE_REQUIRE_POSTGRES'] === '1';
  if (binDir === null && !required) {
    process.stderr.write(
      `\n${testFile}: SKIPPED, no PostgreSQL server (/usr/lib/postgresql/*/bin/initdb); apt-get install postgresql\n\n`,
    );
  }
  return { binDir, run: binDir !== null || required };
}

function findBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : join(root, versions[0] as string, 'bin');
}

export interface PostgresCluster {
  readonly port: number;
  /** The cluster's folder: data in `data/`, the unix socket, the log and the TLS files. */
  readonly dir: string;
  /** The CA that signed the server's certificate, for `sslrootcert=`. */
  readonly caFile: string;
  /** A URL of `database` (default `postgres`) over TCP, without TLS. */
  url(database?: string): string;
  /** The same over TLS, checked against the cluster's CA and the host name (`sslmode=verify-full`). */
  tlsUrl(database?: string): string;
  /** Creates a database (each test its own, so one cluster serves a whole file) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs one statement as the superuser on `database`; returns its rows. */
  query(database: string, text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** `pg_ctl stop -m immediate` is a crash (no shutdown checkpoint); `fast` a clean stop. */
  stop(options?: { mode?: 'immediate' | 'fast' }): Promise<void>;
  /** Starts it again: the same port, the same data. */
  start(): Promise<void>;
  /**
   * Hangs it without stopping it: SIGSTOP to the server and every process it started, so its
   * connections stay open and answer nothing (a database hung, not down). `resume` is SIGCONT.
   */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops it and removes its folder. */
  cleanup(): Promise<void>;
}

/** Initialises and starts a cluster; `binDir` from postgresAvailable(). */
export async function startPostgres(binDir: string | null): Promise<PostgresCluster> {
  if (binDir === null) throw new Error('no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb)');
  const dir = await mkdtemp(join(tmpdir(), 'modgate-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asPostgres = async (program: string, args: string[]) => {
    const path = join(binDir, program);
    const [file, argv] =
      process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
    return run(file, argv, { encoding: 'utf8' });
  };
  if (process.getuid?.() === 0) await chown(dir, ...(await postgresOwner()));
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const caFile = await writeTls(dir, data);
  await appendFile(
    join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      `listen_addresses = 'localhost'`,
      `unix_socket_directories = '${dir}'`,
      'ssl = on',
      `ssl_cert_file = 'server.crt'`,
      `ssl_key_file = 'server.key'`,
      // A test cluster: speed over crash safety of the host (an immediate stop keeps the WAL).
      'fsync = off',
      'shared_buffers = 16MB',
      'max_connections = 200',
      '',
    ].join('\n'),
  );
  const pgCtl = (args: string[]) => asPostgres('pg_ctl', ['-D', data, '-w', '-t', '60', ...args]);
  const start = async () => {
    await pgCtl(['-l', join(dir, 'postgres.log'), 'start']);
  };
  await start();
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async (database: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };
  let running = true;
  const stop = async ({ mode = 'fast' }: { mode?: 'immediate' | 'fast' } = {}) => {
    if (!running) return;
    await pgCtl(['-m', mode, 'stop']);
    running = false;
  };
  return {
    port,
    dir,
    caFile,
    url,
    tlsUrl: (database = 'postgres') =>
      `postgres://postgres@localhost:${port}/${database}?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`,
    createDatabase: async (name) => {
      await query('postgres', `CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      return url(name);
    },
    query,
    stop,
    start: async () => {
      await start();
      running = true;
    },
    pause: async () => signalServer(data, 'SIGSTOP'),
    resume: async () => signalServer(data, 'SIGCONT'),
    cleanup: async () => {
      await signalServer(data, 'SIGCONT').catch(() => undefined);
      await stop({ mode: 'immediate' }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Sends `signal` to the postmaster (its pid is postmaster.pid's first line) and its children. */
async function signalServer(data: string, signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
  const postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children = await run('pgrep', ['-P', String(postmaster)]).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean).map(Number),
    () => [],
  );
  // Children first when stopping, so none notices its parent gone quiet; the parent first when continuing.
  const order = signal === 'SIGSTOP' ? [...children, postmaster] : [postmaster, ...children];
  for (const pid of order) process.kill(pid, signal);
}

async function postgresOwner(): Promise<[number, number]> {
  const { stdout: uid } = await run('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const { stdout: gid } = await run('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return [Number(uid.trim()), Number(gid.trim())];
}

/**
 * A CA of its own and a server certificate it signed for `localhost` and 127.0.0.1, written into
 * the data folder (the key mode 0600 and owned by the server's user, or postgres refuses it);
 * returns the CA's certificate, kept outside the data folder for clients.
 */
async function writeTls(dir: string, data: string): Promise<string> {
  const ca = join(dir, 'ca');
  const openssl = (args: string[]) => run('openssl', args, { encoding: 'utf8' });
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=modgate test CA',
    '-keyout',
    `${ca}.key`,
    '-out',
    `${ca}.crt`,
  ]);
  const server = join(dir, 'server');
  await openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    `${server}.key`,
    '-out',
    `${server}.csr`,
  ]);
  const extensions = join(dir, 'server.ext');
  await writeFile(extensions, 'subjectAltName = DNS:localhost, IP:127.0.0.1\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    `${server}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    extensions,
    '-out',
    `${server}.crt`,
  ]);
  await copyFile(`${server}.crt`, join(data, 'server.crt'));
  await copyFile(`${server}.key`, join(data, 'server.key'));
  if (process.getuid?.() === 0) {
    const [uid, gid] = await postgresOwner();
    for (const name of ['server.crt', 'server.key']) await chown(join(data, name), uid, gid);
  }
  await run('chmod', ['0600', join(data, 'server.key')]);
  return `${ca}.crt`;
}
