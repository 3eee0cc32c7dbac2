/**
 * The daemon lock: `daemon.lock` in the data dir, held by a running daemon from start to stop,
 * naming its process (docs/data-dir.md, "Which process owns the data dir"). It is how
 *
 * - a second daemon on the same data dir is refused at start (two daemons would each keep their
 *   own snapshot, journal and event log position of the same files);
 * - the CLI tells "no daemon runs" (write the data dir itself) from "a daemon runs, but its admin
 *   socket is not usable by this user" (say so, write nothing) (cli/admin-client.ts);
 * - `modgate reload` finds the process to send SIGHUP to.
 *
 * Unlike the data dir lock (lock.ts), which a command holds for a moment, this one lives as long
 * as the daemon, so it is never broken for its age: only when the process it names is gone. A
 * pid alone would lie after a crash and a reboot (the number is soon reused), so the lock also
 * records the boot and the process's start time, where Linux shows them (/proc), and a lock
 * whose boot or start time differs from what the pid has now is a dead daemon's.
 */
import { randomBytes } from 'node:crypto';
// Only /proc is read with it (boot id, process start time); data dir files go through data-dir-fs.ts.
// eslint-disable-next-line no-restricted-imports
import { readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { openDataFile, readDataText } from './data-dir-fs.ts';
import { DAEMON_LOCK_FILE } from './data-dir-layout.ts';
import { errnoCode, StoreError } from './errors.ts';
import { breakStaleLock, createLockFile, processExists } from './lock.ts';

/** What daemon.lock says about the daemon that holds it. */
export interface DaemonOwner {
  readonly pid: number;
  readonly host: string;
  /** /proc/sys/kernel/random/boot_id when the daemon started, or null where there is none. */
  readonly boot: string | null;
  /** The process's start time in clock ticks after boot (/proc/PID/stat), or null. */
  readonly started: number | null;
  readonly token: string;
}

/** A daemon lock this process holds; release() at stop. */
export interface HeldDaemonLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Takes daemon.lock for this process, replacing one whose daemon is gone, or refuses with a
 * StoreError `daemon_running` that names the process already serving the data dir.
 */
export async function holdDaemonLock(dir: string): Promise<HeldDaemonLock> {
  const path = join(dir, DAEMON_LOCK_FILE);
  const owner: DaemonOwner = {
    pid: process.pid,
    host: hostname(),
    boot: bootId(),
    started: processStartTicks(process.pid),
    token: randomBytes(12).toString('hex'),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const created = await createLockFile(path, { ...owner, created_at: new Date().toISOString() });
    if (created) return { path, release: () => release(path, owner) };
    const holder = await readDaemonLock(dir);
    if (holder.state === 'running') {
      throw new StoreError('daemon_running', runningMessage(dir, holder.owner));
    }
    if (holder.state === 'stale') await breakStaleLock(path, holder.ino);
  }
  throw new StoreError('locked', `could not take ${path}: another daemon keeps replacing it`);
}

/** What daemon.lock says now: no lock, a lock whose daemon is gone, or a running daemon. */
export type DaemonLockState =
  | { readonly state: 'none' }
  | { readonly state: 'stale'; readonly ino: number; readonly owner: DaemonOwner | null }
  | { readonly state: 'running'; readonly ino: number; readonly owner: DaemonOwner };

/** Reads daemon.lock of `dir` and judges whether the process it names still runs. */
export async function readDaemonLock(dir: string): Promise<DaemonLockState> {
  const path = join(dir, DAEMON_LOCK_FILE);
  let text: string;
  let ino: number;
  try {
    const handle = await openDataFile(path, 'read');
    try {
      ino = (await handle.stat()).ino;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { state: 'none' };
    throw error;
  }
  const owner = parseOwner(text);
  // Half-written (a daemon starting this instant) or garbage: judged by nothing, so not running.
  if (owner === null) return { state: 'stale', ino, owner };
  return isAlive(owner) ? { state: 'running', ino, owner } : { state: 'stale', ino, owner };
}

/** "another modgate serve is running on this data dir (process 812 on eu-1)" and the way out. */
export function runningMessage(dir: string, owner: DaemonOwner): string {
  return (
    `another modgate serve is running on this data dir, ${dir} (process ${owner.pid} on ${owner.host}); ` +
    `stop it first (systemctl stop modgate, or kill ${owner.pid}). If that process is not a ` +
    `modgate daemon, delete ${join(dir, DAEMON_LOCK_FILE)}`
  );
}

/**
 * Whether the daemon `owner` names runs: on another host we cannot tell, so it does (the safe
 * answer: nothing is written behind its back); here its pid must exist with the same boot and
 * start time.
 */
function isAlive(owner: DaemonOwner): boolean {
  if (owner.host !== hostname()) return true;
  if (owner.boot !== null && bootId() !== null && owner.boot !== bootId()) return false;
  if (!processExists(owner.pid)) return false;
  const started = processStartTicks(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

async function release(path: string, owner: DaemonOwner): Promise<void> {
  const current = await readDataText(path).then(parseOwner, () => null);
  if (current?.token === owner.token) await unlink(path).catch(() => undefined);
}

function parseOwner(text: string): DaemonOwner | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { pid, host, boot, started, token } = parsed as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return null;
    if (typeof host !== 'string' || typeof token !== 'string') return null;
    return {
      pid: pid as number,
      host,
      boot: typeof boot === 'string' ? boot : null,
      started: typeof started === 'number' ? started : null,
      token,
    };
  } catch {
    return null;
  }
}

let cachedBootId: string | null | undefined;

/** This boot's id (Linux), or null elsewhere. */
function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/** Field 22 of /proc/PID/stat, the process's start time after boot; null where unreadable. */
function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isSafeInteger(ticks) ? ticks : null;
  } catch {
    return null;
  }
}
