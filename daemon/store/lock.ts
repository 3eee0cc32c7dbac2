/**
 * The data dir lock: an exclusive lock file (created with O_CREAT | O_EXCL) that the CLI holds
 * for every read-modify-write, so two commands run at once never lose an update. The daemon only
 * reads, except webhooks.json (API registrations, disabling a failing endpoint): it takes the
 * lock for that file like any command.
 *
 * A lock left behind by a crashed command is broken when its owner process is gone (same host)
 * or when it is older than `staleMs`. Breaking renames the lock aside and checks that the file
 * moved is the stale one, so a fresh lock taken meanwhile by a third command is put back.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDataFile, readDataText } from './data-dir-fs.ts';
import { LOCK_FILE } from './data-dir-layout.ts';
import { errnoCode, StoreError } from './errors.ts';

export interface LockOptions {
  /** A lock older than this is considered abandoned. */
  readonly staleMs?: number;
  /** Give up waiting for the lock after this long. */
  readonly timeoutMs?: number;
  /** Pause between attempts (a random jitter of up to the same again is added). */
  readonly retryMs?: number;
}

const DEFAULTS = { staleMs: 10_000, timeoutMs: 15_000, retryMs: 20 };

interface LockOwner {
  readonly token: string;
  readonly pid: number;
  readonly host: string;
}

/** Runs `task` while holding the lock of the data dir `dir`. */
export async function withDataDirLock<T>(
  dir: string,
  task: () => Promise<T>,
  options?: LockOptions,
): Promise<T> {
  const settings = { ...DEFAULTS, ...options };
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = { token: randomBytes(12).toString('hex'), pid: process.pid, host: hostname() };
  await acquire(path, owner, settings);
  try {
    return await task();
  } finally {
    await release(path, owner);
  }
}

async function acquire(path: string, owner: LockOwner, settings: typeof DEFAULTS): Promise<void> {
  const deadline = Date.now() + settings.timeoutMs;
  for (;;) {
    if (await tryCreate(path, owner)) return;
    const holder = await inspect(path, settings.staleMs);
    if (holder.stale) {
      await breakStaleLock(path, holder.ino);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder.owner ? ` by process ${holder.owner.pid} on ${holder.owner.host}` : '';
      throw new StoreError(
        'locked',
        `the data dir is locked${who}; if no other modgate command is running, delete ${path}`,
      );
    }
    await sleep(settings.retryMs + Math.random() * settings.retryMs);
  }
}

function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  return createLockFile(path, { ...owner, created_at: new Date().toISOString() });
}

/** Creates `path` holding `owner` as JSON, or answers false when it exists (O_EXCL). */
export async function createLockFile(path: string, owner: object): Promise<boolean> {
  let handle;
  try {
    handle = await openDataFile(path, 'createNew');
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
  } finally {
    await handle.close();
  }
  return true;
}

interface Holder {
  readonly stale: boolean;
  readonly ino: number;
  readonly owner: LockOwner | null;
}

async function inspect(path: string, staleMs: number): Promise<Holder> {
  let info;
  try {
    info = await lstat(path);
  } catch (error) {
    // Released between our attempt and this look: not stale, just try again.
    if (errnoCode(error) === 'ENOENT') return { stale: false, ino: -1, owner: null };
    throw error;
  }
  const owner = await readOwner(path);
  const ageMs = Date.now() - info.mtimeMs;
  const dead = owner !== null && owner.host === hostname() && !processExists(owner.pid);
  return { stale: dead || ageMs > staleMs, ino: info.ino, owner };
}

/** Moves a stale lock at `path` aside and deletes it, unless another took its place meanwhile. */
export async function breakStaleLock(path: string, staleIno: number): Promise<void> {
  const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return; // someone else broke it first
    throw error;
  }
  const moved = await lstat(aside);
  if (moved.ino !== staleIno) {
    // We moved a lock that was taken after our look: give it back (link fails if the name is
    // taken again, in which case its owner's release check keeps it from deleting a stranger's).
    await link(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

async function release(path: string, owner: LockOwner): Promise<void> {
  const current = await readOwner(path);
  if (current?.token === owner.token) await unlink(path).catch(() => undefined);
}

async function readOwner(path: string): Promise<LockOwner | null> {
  try {
    const parsed: unknown = JSON.parse(await readDataText(path));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { token, pid, host } = parsed as Record<string, unknown>;
    if (typeof token !== 'string' || typeof pid !== 'number' || typeof host !== 'string') return null;
    return { token, pid, host };
  } catch {
    // Missing, or caught half-written: no owner known.
    return null;
  }
}

/** Whether a process `pid` exists on this host (another user's included). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}
