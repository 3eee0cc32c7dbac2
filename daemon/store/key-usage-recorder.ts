/**
 * Records when and from where each API key last authenticated, for `keys list` and the admin
 * API (docs/data-dir.md, "key-usage.json"). A request costs one Map lookup and two field
 * writes: no file write, no allocation once a key has been seen. The uses are written to
 * key-usage.json at most once per `flushDelayMs` while keys are in use (a timer runs only then:
 * an idle daemon writes nothing) and at close.
 */
import type { DataDir } from './data-dir.ts';
import { writeDataFile } from './data-file.ts';
import { StoreError } from './errors.ts';
import { withDataDirLock } from './lock.ts';
import { keyUsageFile, mergeUsage, type KeyUsage } from './key-usage.ts';

export interface KeyUsageRecorderOptions {
  /** How long after a use the file is written; uses in between are written together. */
  readonly flushDelayMs?: number;
  /** A flush or the first read failed (disk full, a broken file); the uses are kept and retried. */
  readonly onError?: (error: unknown) => void;
}

export const DEFAULT_KEY_USAGE_FLUSH_MS = 10_000;

interface RecentUse {
  atMs: number;
  ip: string;
}

export class KeyUsageRecorder {
  #stored: KeyUsage;
  /** Uses since the last flush began, by key id; entries are reused, not replaced. */
  #recent = new Map<string, RecentUse>();
  /** Uses being written now; merged into reads until the write lands. */
  #writing: KeyUsage = new Map();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #dataDir: DataDir;
  readonly #flushDelayMs: number;
  readonly #onError: (error: unknown) => void;

  /** Use KeyUsageRecorder.open(). */
  private constructor(dataDir: DataDir, stored: KeyUsage, options: KeyUsageRecorderOptions) {
    this.#dataDir = dataDir;
    this.#stored = stored;
    this.#flushDelayMs = options.flushDelayMs ?? DEFAULT_KEY_USAGE_FLUSH_MS;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Reads key-usage.json; a broken file is reported and then replaced at the first flush. */
  static async open(dataDir: DataDir, options: KeyUsageRecorderOptions = {}): Promise<KeyUsageRecorder> {
    const stored = await dataDir.read(keyUsageFile).catch((error: unknown) => {
      options.onError?.(error);
      return new Map() as KeyUsage;
    });
    return new KeyUsageRecorder(dataDir, stored, options);
  }

  /** A key authenticated from `ip` at `atMs`: kept in memory, written by the next flush. */
  record(keyId: string, ip: string, atMs: number): void {
    const recent = this.#recent.get(keyId);
    if (recent === undefined) this.#recent.set(keyId, { atMs, ip });
    else if (atMs >= recent.atMs) {
      recent.atMs = atMs;
      recent.ip = ip;
    }
    if (this.#timer === undefined && !this.#closed) this.#schedule();
  }

  /** The last use of every key used so far, written or not. */
  usage(): KeyUsage {
    return mergeUsage(mergeUsage(this.#stored, this.#writing), asUsage(this.#recent));
  }

  /** Writes the uses recorded so far; resolves once they are in the file (or reported). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushDelayMs);
    this.#timer.unref();
  }

  async #write(): Promise<void> {
    if (this.#recent.size === 0) return;
    this.#writing = asUsage(this.#recent);
    this.#recent = new Map();
    try {
      this.#stored = await this.#persist(this.#writing);
    } catch (error) {
      this.#onError(error);
      for (const [id, use] of this.#writing) this.record(id, use.ip, use.at.getTime());
    } finally {
      this.#writing = new Map();
    }
  }

  /**
   * Merges `batch` into the file. A file that no longer parses (hand-edited, cut short) is
   * reported and replaced by what this daemon knows: the file only records, nothing depends on it.
   */
  async #persist(batch: KeyUsage): Promise<KeyUsage> {
    try {
      return (await this.#dataDir.update(keyUsageFile, (stored) => mergeUsage(stored, batch))).after;
    } catch (error) {
      if (!(error instanceof StoreError) || error.code !== 'invalid_file') throw error;
      this.#onError(error);
      const usage = mergeUsage(this.#stored, batch);
      await withDataDirLock(this.#dataDir.path, () => writeDataFile(this.#dataDir.path, keyUsageFile, usage));
      return usage;
    }
  }
}

function asUsage(recent: ReadonlyMap<string, RecentUse>): KeyUsage {
  return new Map([...recent].map(([id, use]) => [id, { at: new Date(use.atMs), ip: use.ip }]));
}
