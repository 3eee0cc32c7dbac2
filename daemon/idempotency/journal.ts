/**
 * The idempotency journal (ARCHITECTURE.md decision 6): completed write outcomes, kept at least
 * 24 h, in an append-only JSON-lines file in the data dir that survives restarts. Each append is
 * fsync'd before the response leaves, so a client that saw a result can always replay it. Opening
 * the journal drops expired records and rewrites the file atomically when it has grown past twice
 * the live records.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.ts';

export const JOURNAL_FILE = 'idempotency.jsonl';
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as base64; empty for none. */
  body: string;
}

export interface JournalRecord {
  /** The record key: key id, method, route and Idempotency-Key (see idempotency.ts). */
  id: string;
  /** SHA-256 of the method, concrete path and canonical body. */
  fingerprint: string;
  /** Epoch ms when the outcome was recorded. */
  at: number;
  response: StoredResponse;
}

export class IdempotencyJournal {
  readonly #records = new Map<string, JournalRecord>();
  #handle: FileHandle | null = null;
  /** Appends run one at a time: a large line written in pieces must not interleave with another. */
  #writes: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly retentionMs: number,
    private readonly now: () => number,
  ) {}

  static async open(
    dataDir: string,
    options: { retentionMs?: number; now?: () => number } = {},
  ): Promise<IdempotencyJournal> {
    const journal = new IdempotencyJournal(
      join(dataDir, JOURNAL_FILE),
      Math.max(options.retentionMs ?? DEFAULT_RETENTION_MS, DEFAULT_RETENTION_MS),
      options.now ?? Date.now,
    );
    await journal.#load();
    return journal;
  }

  get(id: string): JournalRecord | undefined {
    const record = this.#records.get(id);
    if (record && this.now() - record.at >= this.retentionMs) {
      this.#records.delete(id);
      return undefined;
    }
    return record;
  }

  /** Stores a completed outcome; resolves once it is on disk. */
  append(record: JournalRecord): Promise<void> {
    this.#records.set(record.id, record);
    const handle = this.#handle;
    if (!handle) return Promise.reject(new Error('idempotency journal is closed'));
    const write = this.#writes.then(async () => {
      await handle.appendFile(`${JSON.stringify(record)}\n`);
      await handle.sync();
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  get size(): number {
    return this.#records.size;
  }

  async close(): Promise<void> {
    await this.#writes;
    await this.#handle?.close();
    this.#handle = null;
  }

  async #load(): Promise<void> {
    let lines: string[] = [];
    try {
      lines = (await readFile(this.path, 'utf8')).split('\n');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const cutoff = this.now() - this.retentionMs;
    let written = 0;
    for (const line of lines) {
      if (line.trim() === '') continue;
      written++;
      const record = parseRecord(line);
      // A torn last line (a crash mid-append) or an expired record is simply dropped.
      if (record && record.at > cutoff) this.#records.set(record.id, record);
    }
    if (written > 2 * this.#records.size || written === 0) {
      const live = [...this.#records.values()].map((record) => `${JSON.stringify(record)}\n`).join('');
      await writeFileAtomic(this.path, live);
    }
    this.#handle = await open(this.path, 'a', 0o600);
  }
}

function parseRecord(line: string): JournalRecord | null {
  try {
    const value = JSON.parse(line) as JournalRecord;
    const valid =
      typeof value.id === 'string' &&
      typeof value.fingerprint === 'string' &&
      typeof value.at === 'number' &&
      typeof value.response?.status === 'number';
    return valid ? value : null;
  } catch {
    return null;
  }
}
