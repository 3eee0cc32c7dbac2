/**
 * The snapshot a running daemon serves from, and the one way to replace it (DataDir.load()).
 *
 * Nothing polls the files (idle means idle): a change made through the admin API is applied by
 * the handler that made it, reading again only the file it wrote (reloadPart), and a hand edit of a data file while the daemon runs is picked up
 * by `modgate reload` or SIGHUP (docs/data-dir.md, "Changing files while the daemon runs").
 * A reload that finds a broken file (bad JSON, loose permissions, deleted) is refused whole: the
 * last good snapshot stays current, the daemon keeps serving, and the caller reports the error.
 */
import { EventEmitter } from 'node:events';
import type { DataDir, Snapshot, SnapshotPart } from './data-dir.ts';
import { StoreError } from './errors.ts';

interface LiveSnapshotEvents {
  change: [snapshot: Snapshot];
}

export class LiveSnapshot extends EventEmitter<LiveSnapshotEvents> {
  #snapshot: Snapshot;
  /** Loads run one after another, so an older read never replaces a newer one. */
  #queue: Promise<unknown> = Promise.resolve();

  readonly dir: string;
  readonly #dataDir: DataDir;

  /** Use DataDir.load(). */
  constructor(dataDir: DataDir, snapshot: Snapshot) {
    super();
    this.#dataDir = dataDir;
    this.dir = dataDir.path;
    this.#snapshot = snapshot;
  }

  /** The last snapshot that loaded completely. */
  current(): Snapshot {
    return this.#snapshot;
  }

  /**
   * Loads the files now and makes them current, emitting 'change'. Rejects with a StoreError
   * naming the file when one cannot be used; the last good snapshot then stays current.
   */
  reload(): Promise<Snapshot> {
    return this.#queued(() => this.#dataDir.snapshot());
  }

  /**
   * Reads one part's file again (the one an admin write just wrote) into the current snapshot,
   * emitting 'change'; the other files are not read, so a broken one elsewhere neither refuses
   * the write's effect nor is a pending hand edit in it applied. Rejects as reload() does.
   */
  reloadPart(part: SnapshotPart): Promise<Snapshot> {
    return this.#queued(() => this.#dataDir.refreshed(this.#snapshot, part));
  }

  #queued(read: () => Promise<Snapshot>): Promise<Snapshot> {
    const loaded = this.#queue.then(() => this.#load(read));
    this.#queue = loaded.catch(() => undefined);
    return loaded;
  }

  async #load(read: () => Promise<Snapshot>): Promise<Snapshot> {
    let snapshot: Snapshot;
    try {
      snapshot = await read();
    } catch (error) {
      throw this.#refusal(error);
    }
    this.#snapshot = snapshot;
    this.emit('change', snapshot);
    return snapshot;
  }

  /** The error, saying which snapshot the daemon keeps serving. */
  #refusal(error: unknown): StoreError {
    const cause = error instanceof StoreError ? error : null;
    const text = cause?.message ?? `cannot reload ${this.dir}: ${String(error)}`;
    const message = `${text} (still serving the data dir as loaded at ${this.#snapshot.loadedAt.toISOString()})`;
    return new StoreError(cause?.code ?? 'invalid_file', message, { cause: error });
  }
}
