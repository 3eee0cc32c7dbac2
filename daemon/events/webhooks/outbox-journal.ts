/**
 * The webhook outbox journal: `webhook-outbox.jsonl` in the data dir (0600), one JSON line per
 * delivery attempt and per position move, appended and fsync'd by the daemon. It is what makes
 * delivery durable: after a restart each endpoint resumes reading the event log after its
 * recorded position, and a message that was failing keeps its attempt count, its first-failure
 * time (for the retry window) and its webhook-id. Appends are group-committed: lines queued while
 * an fsync runs are written and synced together by the next one.
 *
 * Opening the journal rewrites it compacted (position markers and the recent attempts of the
 * endpoints still registered) once it holds more than twice what it needs. An existing empty
 * journal, the usual one at start-up, is left as it is: rewriting it would write the same nothing,
 * with two fsyncs on serve's way to ready (docs/performance-history.md,
 * "Third pass: serve's start-up").
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../store/atomic-file.ts';
import { openDataFile, readDataText } from '../../store/data-dir-fs.ts';
import { WEBHOOK_FILES } from '../../store/data-dir.ts';
import { errnoCode } from '../../store/errors.ts';
import { OutboxState, parseOutboxLine, type OutboxRecord } from './outbox-state.ts';

export const OUTBOX_FILE = WEBHOOK_FILES.outbox;

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Reads the journal without opening it for writing (`modgate doctor`, a registry without delivery). */
export async function readOutbox(
  dataDir: string,
): Promise<{ state: OutboxState; lines: number; empty: boolean }> {
  const state = new OutboxState();
  let text: string | undefined;
  try {
    text = await readDataText(join(dataDir, OUTBOX_FILE));
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  const empty = text === '';
  text ??= '';
  let lines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    lines++;
    const record = parseOutboxLine(line);
    if (record) state.apply(record);
  }
  return { state, lines, empty };
}

export class OutboxJournal {
  #handle: FileHandle | null = null;
  #queue: Pending[] = [];
  #draining: Promise<void> | null = null;

  private constructor(
    readonly path: string,
    readonly state: OutboxState,
  ) {}

  /** Loads the journal; `liveEndpoints` are the ids still registered (others are dropped). */
  static async open(dataDir: string, liveEndpoints: readonly string[]): Promise<OutboxJournal> {
    const { state, lines, empty } = await readOutbox(dataDir);
    for (const id of state.ids()) if (!liveEndpoints.includes(id)) state.forget(id);
    const journal = new OutboxJournal(join(dataDir, OUTBOX_FILE), state);
    const kept = state.compacted();
    if ((lines === 0 && !empty) || lines > 2 * kept.length) {
      await writeFileAtomic(journal.path, kept.map((record) => `${JSON.stringify(record)}\n`).join(''));
    }
    journal.#handle = await openDataFile(journal.path, 'append');
    return journal;
  }

  /**
   * The journal as it is, not opened for writing: what a registry without delivery shows
   * (webhook-service.ts, `registryOnly`). `append` rejects on it.
   */
  static async read(dataDir: string, liveEndpoints: readonly string[]): Promise<OutboxJournal> {
    const { state } = await readOutbox(dataDir);
    for (const id of state.ids()) if (!liveEndpoints.includes(id)) state.forget(id);
    return new OutboxJournal(join(dataDir, OUTBOX_FILE), state);
  }

  /** Applies the record now and resolves once its line is on disk. */
  append(record: OutboxRecord): Promise<void> {
    if (!this.#handle) return Promise.reject(new Error('webhook outbox journal is closed'));
    this.state.apply(record);
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async close(): Promise<void> {
    await this.#draining;
    await this.#handle?.close();
    this.#handle = null;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && this.#handle) {
      const batch = this.#queue.splice(0);
      try {
        await this.#handle.appendFile(batch.map((pending) => pending.line).join(''));
        await this.#handle.sync();
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.#draining = null;
  }
}
