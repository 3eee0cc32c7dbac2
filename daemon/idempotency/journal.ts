/**
 * The idempotency journal (docs/idempotency.md): completed write outcomes, kept at least
 * 24 h, in an append-only JSON-lines file in the data dir that survives restarts. Each append is
 * fsync'd before the response leaves, so a client that saw a result can always replay it. Opening
 * the journal drops expired records and rewrites the file atomically when it has grown past twice
 * the live records.
 *
 * Faults (docs/idempotency.md "When the journal cannot be written"):
 * - every append starts on a fresh line, whatever the file ends with (a crash or a full disk may
 *   leave a line cut short), and a line cut short is dropped when the journal opens;
 * - a record that cannot be written stays in memory (it still replays) and is written with the
 *   next append, on a timer, or at close; each failure is reported to StorageHealth;
 * - a journal holding lines that are not records is kept aside (renamed, never overwritten), its
 *   good records are kept, and the error names the copy.
 */
import { rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../log/log.ts';
import type { StorageHealth } from '../storage-health.ts';
import { writeFileAtomic } from '../store/atomic-file.ts';
import { openDataFile, readDataText } from '../store/data-dir-fs.ts';
import { lstatOrNull, RECORD_FILES } from '../store/data-dir.ts';

export const JOURNAL_FILE = RECORD_FILES.journal;
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How often records kept only in memory are tried again. */
const RETRY_MS = 5_000;

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

export interface JournalOptions {
  retentionMs?: number;
  now?: () => number;
  log?: Logger;
  health?: StorageHealth;
}

export class IdempotencyJournal {
  readonly #records = new Map<string, JournalRecord>();
  /** Records in memory that are not on disk yet (the disk refused them). */
  readonly #unsaved: JournalRecord[] = [];
  #handle: FileHandle | null = null;
  /** False when the file may end mid-line: the next append starts with a newline. */
  #atLineStart = true;
  #retry: NodeJS.Timeout | null = null;
  /** Appends run one at a time: a large line written in pieces must not interleave with another. */
  #writes: Promise<unknown> = Promise.resolve();
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #health: StorageHealth | undefined;

  private constructor(
    readonly path: string,
    retentionMs: number,
    now: () => number,
    log: Logger,
    health: StorageHealth | undefined,
  ) {
    this.#retentionMs = retentionMs;
    this.#now = now;
    this.#log = log;
    this.#health = health;
  }

  static async open(dataDir: string, options: JournalOptions = {}): Promise<IdempotencyJournal> {
    const journal = new IdempotencyJournal(
      join(dataDir, JOURNAL_FILE),
      Math.max(options.retentionMs ?? DEFAULT_RETENTION_MS, DEFAULT_RETENTION_MS),
      options.now ?? Date.now,
      options.log ?? silentLogger,
      options.health,
    );
    await journal.#load();
    return journal;
  }

  get(id: string): JournalRecord | undefined {
    const record = this.#records.get(id);
    if (record && this.#now() - record.at >= this.#retentionMs) {
      this.#records.delete(id);
      return undefined;
    }
    return record;
  }

  /**
   * Keeps a completed outcome and writes it. Resolves true once it is on disk, false when the
   * disk refused it: it then replays from memory and is written again later. Never rejects.
   */
  append(record: JournalRecord): Promise<boolean> {
    this.#records.set(record.id, record);
    this.#unsaved.push(record);
    return this.#flush();
  }

  get size(): number {
    return this.#records.size;
  }

  /** Records kept only in memory because the disk refused them. */
  get unsaved(): number {
    return this.#unsaved.length;
  }

  async close(): Promise<void> {
    if (this.#handle && this.#unsaved.length > 0) await this.#flush();
    await this.#writes;
    if (this.#retry) clearInterval(this.#retry);
    this.#retry = null;
    if (this.#unsaved.length > 0) {
      this.#log.error('idempotency records lost at shutdown: the disk refused them', {
        file: JOURNAL_FILE,
        unsaved: this.#unsaved.length,
        consequence: 'a retry of these requests runs again, with the op id of the first attempt',
      });
    }
    await this.#handle?.close();
    this.#handle = null;
  }

  #flush(): Promise<boolean> {
    const write = this.#writes.then(() => this.#writeUnsaved());
    this.#writes = write;
    return write;
  }

  async #writeUnsaved(): Promise<boolean> {
    const handle = this.#handle;
    const batch = this.#unsaved.slice();
    if (batch.length === 0) return true;
    if (!handle) return false;
    const text = batch.map((record) => `${JSON.stringify(record)}\n`).join('');
    try {
      await handle.appendFile(this.#atLineStart ? text : `\n${text}`);
      await handle.sync();
    } catch (error) {
      // Part of it may be on disk: start the next attempt on a fresh line.
      this.#atLineStart = false;
      this.#health?.fault(JOURNAL_FILE, error, {
        unsaved: this.#unsaved.length,
        consequence: 'kept in memory and retried; lost if the daemon stops before the disk accepts them',
      });
      if (this.#handle) this.#retry ??= setInterval(() => void this.#flush(), RETRY_MS).unref();
      return false;
    }
    this.#atLineStart = true;
    this.#unsaved.splice(0, batch.length);
    if (this.#unsaved.length === 0 && this.#retry) {
      clearInterval(this.#retry);
      this.#retry = null;
    }
    this.#health?.recovered(JOURNAL_FILE, { written: batch.length });
    return true;
  }

  async #load(): Promise<void> {
    let text = '';
    let exists = true;
    try {
      text = await readDataText(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      exists = false;
    }
    const cutoff = this.#now() - this.#retentionMs;
    const tally = { lines: 0, torn: 0, corrupt: 0 };
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      tally.lines++;
      const record = salvage(line, tally);
      if (record && record.at > cutoff) this.#records.set(record.id, record);
    }
    if (tally.torn > 0) {
      this.#log.warn('idempotency journal: dropped lines cut short by a crash or a full disk', {
        file: JOURNAL_FILE,
        lines: tally.torn,
      });
    }
    if (tally.corrupt > 0) await this.#keepAside(tally.corrupt);
    // An existing empty journal (the usual one at start-up) is left as it is: rewriting it would
    // write the same nothing, with two fsyncs on serve's way to ready (docs/performance-history.md,
    // "What changed, and what each bought").
    const emptyAsItShouldBe = exists && text === '';
    const rewrite = tally.corrupt > 0 || tally.lines > 2 * this.#records.size || tally.lines === 0;
    if (rewrite && !emptyAsItShouldBe) {
      const live = [...this.#records.values()].map((record) => `${JSON.stringify(record)}\n`).join('');
      await writeFileAtomic(this.path, live);
    } else {
      this.#atLineStart = text === '' || text.endsWith('\n');
    }
    this.#handle = await openDataFile(this.path, 'append');
  }

  /** Renames the journal to a free `<name>.corrupt-<time>` and says so; the caller rewrites it. */
  async #keepAside(badLines: number): Promise<void> {
    const stamp = new Date(this.#now()).toISOString().replaceAll(':', '-');
    let aside = `${this.path}.corrupt-${stamp}`;
    for (let n = 1; (await lstatOrNull(aside)) !== null; n++) aside = `${this.path}.corrupt-${stamp}-${n}`;
    await rename(this.path, aside);
    this.#log.error('idempotency journal is corrupt: kept aside, its readable records kept', {
      file: JOURNAL_FILE,
      kept_aside_as: aside,
      bad_lines: badLines,
      records: this.#records.size,
    });
  }
}

/**
 * A line's record. A line cut short (a crash or a full disk mid-append) is counted as torn; a
 * record an older daemon appended onto such a fragment is recovered from its end; anything else
 * that is not a record is corrupt.
 */
function salvage(line: string, tally: { torn: number; corrupt: number }): JournalRecord | null {
  const record = parseRecord(line);
  if (record) return record;
  const start = line.lastIndexOf('{"id":');
  const tail = start > 0 ? parseRecord(line.slice(start)) : null;
  if (tail || (start >= 0 && !line.endsWith('}'))) tally.torn++;
  else tally.corrupt++;
  return tail;
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
