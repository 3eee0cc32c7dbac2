/**
 * The group outbox: `group-outbox.jsonl` in the data dir (0600), where a sanction made on this
 * server is written, and fsync'd, before it is published to the group (docs/group.md, "When the
 * database is down"). One JSON line per sanction (`{"add": …}`) and per publication
 * (`{"done": local_id}`); what has an `add` and no `done` is published again, in order, after a
 * restart or when the database is back. A publication repeated after a crash is harmless: the
 * group's log takes each (origin server, local id) once.
 *
 * Bounded: past MAX_PENDING unpublished sanctions a new one is refused (logged by the caller),
 * so a group database gone for weeks cannot fill the disk. Opening the outbox rewrites it
 * (atomically) to what is still pending when it holds published lines.
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.ts';
import { openDataFile, readDataText } from '../store/data-dir-fs.ts';
import { GROUP_FILES } from '../store/data-dir-layout.ts';
import { errnoCode } from '../store/errors.ts';
import type { SanctionKind } from '../config/config.ts';
import { kindOf, type Sanction } from './sanction.ts';

export const MAX_PENDING = 100_000;

export class OutboxFull extends Error {
  constructor() {
    super(`the group outbox holds ${MAX_PENDING} unpublished sanctions`);
    this.name = 'OutboxFull';
  }
}

export class GroupOutbox {
  readonly #pending = new Map<string, Sanction>();
  #handle: FileHandle | null = null;
  /** Appends in order, each after the one before (a line is never interleaved). */
  #tail: Promise<void> = Promise.resolve();

  private constructor(readonly path: string) {}

  /** Reads what is left to publish and opens the file for appending. */
  static async open(dataDir: string): Promise<GroupOutbox> {
    const outbox = new GroupOutbox(join(dataDir, GROUP_FILES.outbox));
    let text = '';
    try {
      text = await readDataText(outbox.path);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    let lines = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      outbox.#apply(line);
    }
    if (lines > outbox.#pending.size) {
      const kept = [...outbox.#pending.values()].map((add) => `${JSON.stringify({ add })}\n`);
      await writeFileAtomic(outbox.path, kept.join(''));
    }
    outbox.#handle = await openDataFile(outbox.path, 'append');
    return outbox;
  }

  /** A torn last line (a crash mid-write) is skipped: its sanction was never acknowledged as kept. */
  #apply(line: string): void {
    let record: { add?: Sanction; done?: string };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return;
    }
    if (record.add) this.#pending.set(record.add.local_id, record.add);
    if (typeof record.done === 'string') this.#pending.delete(record.done);
  }

  /** The oldest unpublished sanction, or undefined when all are published. */
  first(): Sanction | undefined {
    return this.#pending.values().next().value;
  }

  /** Whether an unpublished sanction of this kind (`bans`, `mutes`) names this player. */
  has(platformId: string, kind: SanctionKind): boolean {
    for (const sanction of this.#pending.values()) {
      if (sanction.platform_id === platformId && kindOf(sanction.action) === kind) return true;
    }
    return false;
  }

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Keeps `sanction` until it is published; resolves once its line is fsync'd. Even when the
   * write fails (a full disk) it stays pending in memory, so a running daemon still publishes
   * it; the rejection says it would not survive a restart.
   */
  add(sanction: Sanction): Promise<void> {
    if (this.#pending.size >= MAX_PENDING) return Promise.reject(new OutboxFull());
    this.#pending.set(sanction.local_id, sanction);
    return this.#write(`${JSON.stringify({ add: sanction })}\n`, true);
  }

  /** The sanction is in the group's log: not published again (not fsync'd: a repeat is harmless). */
  done(localId: string): Promise<void> {
    if (!this.#pending.delete(localId)) return Promise.resolve();
    return this.#write(`${JSON.stringify({ done: localId })}\n`, false);
  }

  async close(): Promise<void> {
    await this.#tail.catch(() => undefined);
    await this.#handle?.close();
    this.#handle = null;
  }

  #write(line: string, sync: boolean): Promise<void> {
    const written = this.#tail.then(async () => {
      const handle = this.#handle;
      if (!handle) throw new Error('the group outbox is closed');
      await handle.appendFile(line);
      if (sync) await handle.sync();
    });
    this.#tail = written.catch(() => undefined);
    return written;
  }
}
