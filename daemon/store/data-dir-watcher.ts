/**
 * Keeps a running daemon's snapshot in step with the data dir (docs/data-dir.md: a
 * change made by the CLI reaches the daemon within a second, without restart).
 *
 * It polls the (ino, size, mtimeMs, mode) of the snapshot's files every `pollIntervalMs` with an
 * unref'd timer, because fs.watch misses changes on some filesystems (network mounts, some
 * container overlays). The CLI writes by rename, so every write shows up as a new inode even
 * where mtime is coarse. A file that breaks (bad JSON, loose permissions, deleted) never takes the
 * daemon down: the last good snapshot stays current and the watcher emits 'error' once per
 * broken state, then 'change' again once the files load.
 */
import { EventEmitter } from 'node:events';
import { statOrNull } from './data-dir-fs.ts';
import type { DataDir, Snapshot } from './data-dir.ts';
import { StoreError } from './errors.ts';

export interface DataDirWatcherOptions {
  /** How often to look at the files; ~250 ms keeps a CLI change under a second away. */
  readonly pollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 250;

interface WatcherEvents {
  change: [snapshot: Snapshot];
  error: [error: StoreError];
}

/**
 * Loads the first snapshot of an opened data dir and starts watching it (DataDir.watch()).
 * Rejects with a StoreError (naming the file and the fix) when the files cannot be used at all;
 * the daemon should not start then.
 */
export async function watchDataDir(
  dataDir: DataDir,
  options: DataDirWatcherOptions = {},
): Promise<DataDirWatcher> {
  const fingerprint = await fingerprintFiles(dataDir);
  const snapshot = await dataDir.snapshot();
  return new DataDirWatcher(
    dataDir,
    snapshot,
    fingerprint,
    options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  );
}

export class DataDirWatcher extends EventEmitter<WatcherEvents> {
  #snapshot: Snapshot;
  #fingerprint: string;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Loads run one after another; a poll that finds one queued skips its turn. */
  #queue: Promise<void> = Promise.resolve();
  #pendingLoads = 0;

  readonly dir: string;
  readonly #dataDir: DataDir;
  readonly #pollIntervalMs: number;

  /** Use DataDir.watch(). */
  constructor(dataDir: DataDir, snapshot: Snapshot, fingerprint: string, pollIntervalMs: number) {
    super();
    this.#dataDir = dataDir;
    this.#pollIntervalMs = pollIntervalMs;
    this.dir = dataDir.path;
    this.#snapshot = snapshot;
    this.#fingerprint = fingerprint;
    this.#schedule();
  }

  /** The last snapshot that loaded completely. */
  current(): Snapshot {
    return this.#snapshot;
  }

  /**
   * Loads the files now (for SIGHUP). Never rejects: a failure is reported through 'error' and
   * the last good snapshot stays current.
   */
  async reload(): Promise<void> {
    this.#pendingLoads += 1;
    this.#queue = this.#queue.then(async () => {
      await this.#load();
      this.#pendingLoads -= 1;
    });
    await this.#queue;
  }

  /** Stops polling. Idempotent. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#poll(), this.#pollIntervalMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      if (this.#pendingLoads > 0) return;
      const fingerprint = await fingerprintFiles(this.#dataDir);
      if (fingerprint !== this.#fingerprint) await this.reload();
    } catch (error) {
      this.#report(error);
    } finally {
      this.#schedule();
    }
  }

  async #load(): Promise<void> {
    try {
      // Take the fingerprint before reading: a write that lands in between is seen next poll.
      this.#fingerprint = await fingerprintFiles(this.#dataDir);
      const snapshot = await this.#dataDir.snapshot();
      if (this.#closed) return;
      this.#snapshot = snapshot;
      this.emit('change', snapshot);
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    if (this.#closed) return;
    const storeError =
      error instanceof StoreError
        ? error
        : new StoreError('invalid_file', `cannot reload ${this.dir}: ${String(error)}`, { cause: error });
    const message = `${storeError.message} (still serving the data dir as loaded at ${this.#snapshot.loadedAt.toISOString()})`;
    const reported = new StoreError(storeError.code, message, { cause: storeError.cause ?? storeError });
    // An 'error' event without a listener would throw and take the daemon down: warn instead.
    if (this.listenerCount('error') > 0) this.emit('error', reported);
    else process.emitWarning(reported.message, 'ModgateDataDirWarning');
  }
}

/**
 * What changes when a snapshot file is replaced, edited or chmod'ed. Of the folder only the mode
 * counts: its mtime moves with every lock and temp file the CLI creates.
 */
async function fingerprintFiles(dataDir: DataDir): Promise<string> {
  const folder = await statOrNull(dataDir.path);
  const files = await Promise.all(
    dataDir.snapshotPaths().map(async (path) => {
      const info = await statOrNull(path);
      return info === null ? 'missing' : `${info.ino}:${info.size}:${info.mtimeMs}:${info.mode}`;
    }),
  );
  return [folder === null ? 'missing' : String(folder.mode), ...files].join('|');
}
