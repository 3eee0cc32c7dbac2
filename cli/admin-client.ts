/**
 * The one way an administrative command acts (docs/admin.md, "The CLI and a running daemon"):
 * it builds an admin API request and sends it to an AdminClient, which is
 *
 * - the daemon serving the data dir, over `<data-dir>/admin.sock`, when one runs: the change
 *   takes effect at once;
 * - else the same admin pipeline run in this process over the data dir (cli/in-process-admin.ts,
 *   daemon/admin/offline-services.ts), holding the data dir's daemon lock while the command runs;
 *   the next start reads what it wrote.
 *
 * Either way the routes' code, checks and answers are the same, and the audit log names the
 * local user. A daemon that runs but whose socket does not let this user in (EACCES) is said so,
 * naming the user to run as, and nothing is written behind its back.
 *
 * "Runs" is the data dir's daemon lock (daemon.lock, daemon/store/daemon-lock.ts): a socket
 * that refuses or is missing while the lock names a live process is a daemon starting up (the
 * lock is taken before the socket listens), or another command's in-process admin: waited for a
 * moment and then reported, never written around. The data dir is opened (and trust-checked)
 * before the socket is touched, so the socket connected to is one in a folder this user owns.
 */
import { lstatSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readDaemonLock, type DaemonOwner } from '../daemon/store/daemon-lock.ts';
import { ADMIN_FILES, type DataDir } from '../daemon/store/data-dir.ts';
import { errnoCode, StoreError } from '../daemon/store/errors.ts';
import { userName } from '../daemon/store/user-name.ts';
import { errorOf } from './admin-errors.ts';
import { CliError, EXIT_OPERATIONAL, EXIT_USAGE } from './errors.ts';
import type { CliIo } from './io.ts';
import { shellWord } from './permission-hint.ts';
import { openDataDirOf } from './options.ts';

export interface AdminClientOptions {
  /** How long one request may take, answer included; default 30 s. */
  readonly timeoutMs?: number;
  /** The largest answer read; default 8 MiB. */
  readonly maxResponseBytes?: number;
  /** How long to wait for a daemon whose lock is held but whose socket does not answer yet; default 5 s. */
  readonly startupWaitMs?: number;
}

const DEFAULTS = { timeoutMs: 30_000, maxResponseBytes: 8 * 1024 * 1024, startupWaitMs: 5_000 };

/** One answer of the admin API, its body parsed as JSON (null for an empty body). */
export interface AdminAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A request to the admin API, as the CLI sends them. */
export interface AdminRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Under /admin/v1, with its query string: `/keys`, `/keys/abc?x=1`. */
  readonly path: string;
  readonly body?: unknown;
}

/**
 * Where a command sends its admin requests: a daemon's socket, or the in-process admin. `send`
 * resolves with 2xx answers only; an error envelope becomes a CliError with the CLI's code and
 * exit code (`errorOf`, cli/admin-errors.ts).
 */
export interface AdminClient {
  send(call: AdminRequest): Promise<AdminAnswer>;
}

/** The admin API over one data dir's socket. */
export class SocketAdminClient implements AdminClient {
  readonly socketPath: string;
  readonly #options: typeof DEFAULTS;

  constructor(socketPath: string, options: AdminClientOptions = {}) {
    this.socketPath = socketPath;
    this.#options = { ...DEFAULTS, ...options };
  }

  async send(call: AdminRequest): Promise<AdminAnswer> {
    const answer = await exchange(this.socketPath, call, this.#options);
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw errorOf(answer, dirname(this.socketPath)); // admin.sock is in the data dir
  }
}

/**
 * Opens the data dir that `--data-dir` names and runs `command` with the daemon's admin API when
 * one serves it, else with the in-process admin over the data dir, closed (and its daemon lock
 * let go) when `command` settles.
 */
export async function withAdmin<T>(
  flags: { dataDir?: string },
  io: CliIo,
  command: (admin: AdminClient, dataDir: DataDir) => Promise<T>,
  options: AdminClientOptions = {},
): Promise<T> {
  const dataDir = await openDataDirOf(flags, io);
  for (;;) {
    const daemon = await adminClientFor(dataDir, options);
    if (daemon !== null) return command(daemon, dataDir);
    try {
      // Imported here: a command answered by the daemon never loads the routes.
      const { openInProcessAdmin } = await import('./in-process-admin.ts');
      const local = await openInProcessAdmin(dataDir, io);
      try {
        return await command(local.client, dataDir);
      } finally {
        await local.close();
      }
    } catch (error) {
      // A daemon or another command took the lock between the look and the taking: look again
      // (adminClientFor waits while a lock is held and no socket answers, then reports it).
      if (error instanceof StoreError && error.code === 'daemon_running') continue;
      throw error;
    }
  }
}

/**
 * The admin client of the daemon serving `dataDir`, for a command only a running daemon can
 * answer: exit 1 `daemon_not_running` with `whyNeeded` (what the command would have shown) when
 * none runs.
 */
export async function runningDaemonAdmin(dataDir: DataDir, whyNeeded: string): Promise<SocketAdminClient> {
  const admin = await adminClientFor(dataDir);
  if (admin === null) {
    throw new CliError(
      `no modgate daemon serves ${dataDir.path}, ${whyNeeded}`,
      EXIT_OPERATIONAL,
      'daemon_not_running',
    );
  }
  return admin;
}

/**
 * The admin client of the daemon serving `dataDir`, or null when none runs. Throws a CliError
 * when one runs that this user cannot reach.
 */
export async function adminClientFor(
  dataDir: DataDir,
  options: AdminClientOptions = {},
): Promise<SocketAdminClient | null> {
  const settings = { ...DEFAULTS, ...options };
  const client = new SocketAdminClient(join(dataDir.path, ADMIN_FILES.socket), settings);
  const deadline = Date.now() + settings.startupWaitMs;
  for (;;) {
    const problem = await probe(client.socketPath, settings.timeoutMs);
    if (problem === null) return client;
    const lock = await readDaemonLock(dataDir.path);
    if (lock.state !== 'running') return null; // no daemon: a leftover socket, or none at all
    if (problem === 'EACCES' || problem === 'EPERM')
      throw notYours(dataDir.path, client.socketPath, lock.owner);
    if (Date.now() >= deadline) throw unreachable(dataDir.path, client.socketPath, lock.owner, problem);
    await sleep(100); // a daemon that took its lock and is still opening its socket
  }
}

/** Null when something accepts a connection on the socket, else the errno that refused it. */
function probe(socketPath: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    // agent: false, here and below: a socket kept alive from an earlier command in the same
    // process would never emit 'connect', and the CLI sends so few requests that reuse buys nothing.
    const outgoing = request({
      socketPath,
      agent: false,
      method: 'GET',
      path: '/admin/v1/status',
      timeout: timeoutMs,
    });
    outgoing.on('socket', (socket) =>
      socket.once('connect', () => {
        outgoing.destroy();
        resolve(null);
      }),
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', (error) => resolve(errnoCode(error) ?? 'ECONNREFUSED'));
    outgoing.end();
  });
}

function exchange(socketPath: string, call: AdminRequest, options: typeof DEFAULTS): Promise<AdminAnswer> {
  const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
  const headers: Record<string, string> = { host: 'localhost', accept: 'application/json' };
  if (body) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const path = `/admin/v1${call.path}`;
    const outgoing = request({
      socketPath,
      agent: false,
      method: call.method,
      path,
      headers,
      timeout: options.timeoutMs,
    });
    outgoing.on('response', (incoming) => {
      readAnswer(incoming, options.maxResponseBytes).then(resolve, (error: unknown) => {
        outgoing.destroy();
        reject(error);
      });
    });
    outgoing.on('timeout', () => {
      const seconds = options.timeoutMs / 1000;
      outgoing.destroy();
      reject(
        new CliError(`the daemon did not answer on ${socketPath} within ${seconds} s`, 1, 'daemon_timeout'),
      );
    });
    outgoing.on('error', (error) =>
      reject(new CliError(`lost the daemon on ${socketPath}: ${error.message}`, 1, 'daemon_unreachable')),
    );
    outgoing.end(body);
  });
}

/** The answer's status and JSON body, read up to `limit` bytes. */
async function readAnswer(incoming: IncomingMessage, limit: number): Promise<AdminAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new CliError(`the daemon's answer is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { status: incoming.statusCode ?? 0, body: text === '' ? null : (JSON.parse(text) as unknown) };
  } catch {
    throw new CliError(`the daemon answered ${incoming.statusCode} with a body that is not JSON`);
  }
}

/** A daemon runs, but its socket refuses this user: the way out names the socket's owner. */
class NotYourDaemonError extends CliError {
  constructor(
    message: string,
    readonly owner: string | null,
  ) {
    super(message, EXIT_USAGE, 'permission_denied');
  }

  override describe(argv: readonly string[]): string {
    const again = ['sudo', '-u', this.owner ?? 'USER', 'modgate', ...argv.map(shellWord)].join(' ');
    return `${this.message} Run it as the user the daemon runs as:\n  ${again}`;
  }
}

function notYours(dir: string, socketPath: string, owner: DaemonOwner): CliError {
  const uid = lstatSync(socketPath, { throwIfNoEntry: false })?.uid;
  return new NotYourDaemonError(
    `a modgate daemon (process ${owner.pid}) serves ${dir}, but its admin socket ${socketPath} does not let ` +
      `this user in (permission denied), so nothing was changed: files written behind a running daemon ` +
      'would not take effect, and it could overwrite them.',
    uid === undefined ? null : (userName(uid) ?? String(uid)),
  );
}

function unreachable(dir: string, socketPath: string, owner: DaemonOwner, problem: string): CliError {
  return new CliError(
    `a modgate daemon (process ${owner.pid}) serves ${dir}, but nothing answers on its admin socket ${socketPath} (${problem}). ` +
      `Nothing was changed. Retry once it has started; if it hangs, restart it (systemctl restart modgate).`,
    EXIT_OPERATIONAL,
    'daemon_unreachable',
  );
}
