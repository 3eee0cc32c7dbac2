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
import type { AdminTokenRecord } from './admin-tokens.ts';
import { StoreError } from './errors.ts';
import type { ServerIdentity } from './identity.ts';
import type { ApiKeyRecord } from './keys-file.ts';
import type { State } from './state.ts';

/** The parts of a snapshot an admin write changes: state.json, keys.json, admin-tokens.json. */
export type SnapshotPart = 'state' | 'keys' | 'adminTokens';

/**
 * The daemon's view of the data dir: everything it needs from the files, loaded together and
 * never mutated. The request pipeline reads one snapshot per request; a reload swaps it whole,
 * an admin write the part it wrote (refreshed()).
 */
export interface Snapshot {
  readonly identity: ServerIdentity;
  readonly state: State;
  readonly keysById: ReadonlyMap<string, ApiKeyRecord>;
  /** admin-tokens.json (empty until the first `admin tokens create`). */
  readonly adminTokensById: ReadonlyMap<string, AdminTokenRecord>;
  /** Raw 32-byte Ed25519 public keys of the mods allowed to connect. */
  readonly trustedModKeys: readonly Uint8Array[];
  readonly loadedAt: Date;
}

/** Where a snapshot is read from: the data dir (DataDir), named here by what is asked of it. */
export interface SnapshotSource {
  readonly path: string;
  /** Every file read again. */
  snapshot(): Promise<Snapshot>;
  /** `snapshot` with one part's file read again. */
  refreshed(snapshot: Snapshot, part: SnapshotPart): Promise<Snapshot>;
}

interface LiveSnapshotEvents {
  change: [snapshot: Snapshot];
}

export class LiveSnapshot extends EventEmitter<LiveSnapshotEvents> {
  #snapshot: Snapshot;
  /** Loads run one after another, so an older read never replaces a newer one. */
  #queue: Promise<unknown> = Promise.resolve();

  readonly dir: string;
  readonly #dataDir: SnapshotSource;

  /** Use DataDir.load(). */
  constructor(dataDir: SnapshotSource, snapshot: Snapshot) {
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
