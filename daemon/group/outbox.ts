/**
 * The group outbox: `group-outbox.jsonl` in the data dir (0600), the journal of what this server
 * owes the group (docs/group.md, "When the database is down"). One JSON line per record:
 *
 * - `{"add": sanction}`: a sanction made on this server, fsync'd before it is published (and
 *   before the /v1 answer leaves). It carries its signature (sanction.ts), so the second sighting
 *   of the same change is recognised after a restart too.
 * - `{"done": local_id}`: it is in the group's log; what has an `add` and no `done` is published
 *   again, in order, after a restart or when the database is back. A repeat is harmless: the
 *   group's log takes each (origin server, local id) once.
 * - `{"read": event id}`: how far through the event log the capture has dealt with the mod's
 *   moderation events; at start, the ones after it are read again (a kill -9 between an event's
 *   fsync and its `add` loses nothing).
 * - `{"applying": key}` before this server's game is told to apply a sanction from the group,
 *   and `{"seen": note}` once it has answered (`{"settled": key}` when it never did): a moderation event read again at start for a
 *   player still being applied, or with a noted signature, is the group's own and not published.
 *
 * Bounded: past MAX_PENDING unpublished sanctions a new one is refused (logged by the caller),
 * so a group database gone for weeks cannot fill the disk. The file is rewritten (atomically) to
 * what still matters when it is opened, and while it runs once its lines pass COMPACT_BYTES and
 * twice what the last rewrite left: a server that applies a thousand sanctions a minute appends
 * three lines for each. A line that cannot be written (a full disk) is kept in memory and written
 * again every RETRY_MS until it is (`unwritten`).
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import { GROUP_FILES } from '../store/data-dir-layout.ts';
import { errnoCode } from '../store/errors.ts';
import type { SanctionKind } from '../config/config.ts';
import { kindOf, type Sanction, type SanctionAction } from './sanction.ts';

export const MAX_PENDING = 100_000;

/** How long a signature is worth keeping across a restart (group-capture.ts's REMEMBER_MS). */
export const SEEN_KEPT_MS = 5 * 60_000;

/** How often lines a full disk refused are written again. */
export const RETRY_MS = 2_000;

/** The least the file grows to before it is rewritten while running (see the module comment). */
export const COMPACT_BYTES = 1024 * 1024;

/** A sanction as the outbox keeps it: with the signature of the change it records. */
export type KeptSanction = Sanction & { signature?: string };

/** A sighting remembered across a restart (GroupCapture.restore). */
export interface SeenNote {
  action: SanctionAction;
  platform_id: string;
  signature: string;
  /** When it was seen (ms since the epoch). */
  at: number;
}

/** A player whose bans or mutes this server's game is applying from the group. */
export type ApplyingKey = `${SanctionKind} ${string}`;

interface OutboxRecord {
  add?: KeptSanction;
  done?: string;
  read?: number;
  applying?: ApplyingKey;
  settled?: ApplyingKey;
  seen?: SeenNote;
}

export class OutboxFull extends Error {
  constructor() {
    super(`the group outbox holds ${MAX_PENDING} unpublished sanctions`);
    this.name = 'OutboxFull';
  }
}

export class GroupOutbox {
  readonly #pending = new Map<string, KeptSanction>();
  #seen: SeenNote[] = [];
  /** Applications open at the last stop, until settle(). */
  readonly #applying = new Set<ApplyingKey>();
  /** Applications this run has begun and the game not yet answered (a rewrite keeps them open). */
  readonly #open = new Map<ApplyingKey, number>();
  /** The file's length, and what it was after the last rewrite: when to rewrite it again. */
  #bytes = 0;
  #compactedBytes = 0;
  #read: number | null = null;
  #handle: FileHandle | null = null;
  /** Appends in order, each after the one before (a line is never interleaved). */
  #tail: Promise<void> = Promise.resolve();
  /** Lines a failed write left out, written again before any other. */
  #unwritten: string[] = [];
  /** A failed write may have left a torn line: the next write starts on a fresh one. */
  #torn = false;
  #retry: NodeJS.Timeout | null = null;
  #compacting = false;
  /** A rewrite replaced the file and the handle to the new one is not open yet. */
  #stale = false;

  private constructor(
    readonly path: string,
    readonly now: () => number,
  ) {}

  /**
   * Reads what is left to publish and remember, a line at a time (the file may hold up to
   * MAX_PENDING sanctions), and opens the file for appending.
   */
  static async open(dataDir: string, now: () => number = Date.now): Promise<GroupOutbox> {
    const outbox = new GroupOutbox(join(dataDir, GROUP_FILES.outbox), now);
    let lines = 0;
    let handle: FileHandle | null = null;
    try {
      handle = await openDataFile(outbox.path, 'read');
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    try {
      for await (const line of handle?.readLines() ?? []) {
        if (line.trim() === '') continue;
        lines++;
        outbox.#apply(line, now() - SEEN_KEPT_MS);
      }
    } finally {
      await handle?.close();
    }
    const keptLines = outbox.#compacted();
    const kept = keptLines.join('');
    if (lines > keptLines.length) await writeFileAtomic(outbox.path, kept);
    outbox.#handle = await openDataFile(outbox.path, 'append');
    outbox.#bytes = outbox.#compactedBytes = Buffer.byteLength(kept);
    return outbox;
  }

  /** A torn line (a crash or a full disk mid-write) is skipped: it was never acknowledged as kept. */
  #apply(line: string, since: number): void {
    let record: OutboxRecord;
    try {
      record = JSON.parse(line) as OutboxRecord;
    } catch {
      return;
    }
    const { add, done, read, applying, settled, seen } = record;
    if (add) {
      this.#pending.set(add.local_id, add);
      const at = Date.parse(add.created_at);
      if (add.signature !== undefined && at >= since)
        this.#seen.push({ action: add.action, platform_id: add.platform_id, signature: add.signature, at });
    }
    if (typeof done === 'string') this.#pending.delete(done);
    if (typeof read === 'number') this.#read = Math.max(this.#read ?? 0, read);
    if (typeof applying === 'string') this.#applying.add(applying);
    if (typeof settled === 'string') this.#applying.delete(settled);
    if (seen) {
      this.#applying.delete(`${kindOf(seen.action)} ${seen.platform_id}`);
      if (seen.at >= since) this.#seen.push(seen);
    }
  }

  /** What a rewrite keeps: the pending sanctions, the recent notes, the position, the open applications. */
  #compacted(): string[] {
    const lines = [...this.#pending.values()].map((add) => line({ add }));
    // A pending sanction's note comes back from its `add` line; the others need their own.
    const pending = new Set([...this.#pending.values()].map((add) => add.signature));
    this.#forgetOldNotes();
    for (const seen of this.#seen) if (!pending.has(seen.signature)) lines.push(line({ seen }));
    for (const applying of new Set([...this.#applying, ...this.#open.keys()])) lines.push(line({ applying }));
    if (this.#read !== null) lines.push(line({ read: this.#read }));
    return lines;
  }

  /** The oldest unpublished sanction, or undefined when all are published. */
  first(): KeptSanction | undefined {
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

  /** The event log position recorded last; null when this outbox has never recorded one. */
  get readPosition(): number | null {
    return this.#read;
  }

  /** The sightings of the last few minutes, as recorded before the last stop. */
  get seen(): readonly SeenNote[] {
    return this.#seen;
  }

  /** The players whose application from the group had begun and not been answered at the last stop. */
  get unsettled(): ReadonlySet<ApplyingKey> {
    return this.#applying;
  }

  /**
   * Keeps `sanction` until it is published; resolves once its line is fsync'd. Even when the
   * write fails (a full disk) it stays pending in memory, so a running daemon still publishes
   * it, and its line is written again until there is room; the rejection says it would not yet
   * survive a restart.
   */
  add(sanction: KeptSanction): Promise<void> {
    if (this.#pending.size >= MAX_PENDING) return Promise.reject(new OutboxFull());
    this.#pending.set(sanction.local_id, sanction);
    // Kept for a rewrite, which drops the `add` line once the sanction is published.
    const { action, platform_id, signature, created_at: at } = sanction;
    if (signature !== undefined) this.#note({ action, platform_id, signature, at: Date.parse(at) });
    return this.#write(line({ add: sanction }), true);
  }

  /** The sanction is in the group's log: not published again (not fsync'd: a repeat is harmless). */
  done(localId: string): Promise<void> {
    if (!this.#pending.delete(localId)) return Promise.resolve();
    return this.#write(line({ done: localId }), false);
  }

  /** The capture has dealt with every event up to `eventId` (not fsync'd: reading again is harmless). */
  read(eventId: number): Promise<void> {
    if (this.#read !== null && eventId <= this.#read) return Promise.resolve();
    this.#read = eventId;
    return this.#write(line({ read: eventId }), false);
  }

  /** This server's game is about to apply sanctions from the group to these players (one fsync). */
  applying(...keys: ApplyingKey[]): Promise<void> {
    for (const key of keys) this.#open.set(key, (this.#open.get(key) ?? 0) + 1);
    return this.#write(keys.map((applying) => line({ applying })).join(''), true);
  }

  /** The game answered an application from the group with the change `note` signs (null: it made none, or failed). */
  applied(key: ApplyingKey, note: SeenNote | null): Promise<void> {
    const left = (this.#open.get(key) ?? 1) - 1;
    if (left > 0) this.#open.set(key, left);
    else this.#open.delete(key);
    if (note !== null) this.#note(note);
    return this.#write(line(note === null ? { settled: key } : { seen: note }), false);
  }

  /** A sighting a rewrite keeps while it is recent; older ones are dropped as they pile up. */
  #note(note: SeenNote): void {
    this.#seen.push(note);
    const oldest = this.#seen[0] as SeenNote;
    if (this.#seen.length > 1_000 && oldest.at < this.now() - SEEN_KEPT_MS) this.#forgetOldNotes();
  }

  /** Drops the sightings older than SEEN_KEPT_MS. */
  #forgetOldNotes(): void {
    const since = this.now() - SEEN_KEPT_MS;
    this.#seen = this.#seen.filter((seen) => seen.at >= since);
  }

  /** The applications open at the last stop are dealt with (their events were read again). */
  settle(): Promise<void> {
    const open = [...this.#applying];
    this.#applying.clear();
    if (open.length === 0) return Promise.resolve();
    return this.#write(open.map((settled) => line({ settled })).join(''), false);
  }

  async close(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    await this.#tail.catch(() => undefined);
    await this.#handle?.close();
    [this.#handle, this.#stale] = [null, false];
  }

  /** Whether lines a full disk refused are still waiting to be written. */
  get behind(): boolean {
    return this.#unwritten.length > 0;
  }

  #write(text: string, sync: boolean): Promise<void> {
    const written = this.#tail.then(async () => {
      if (!this.#handle && !this.#stale) throw new Error('the group outbox is closed');
      // Lines refused before go first, so the file keeps the order things happened in.
      const lines = [...this.#unwritten, text];
      const body = `${this.#torn ? '\n' : ''}${lines.join('')}`;
      try {
        // A rewrite that could not open the new file again leaves that to the next write.
        if (this.#stale) [this.#handle, this.#stale] = [await openDataFile(this.path, 'append'), false];
        const handle = this.#handle as FileHandle;
        await handle.appendFile(body);
        if (sync || this.#unwritten.length > 0) await handle.sync();
      } catch (error) {
        this.#torn = true;
        this.#unwritten = lines;
        this.#retryLater();
        throw error;
      }
      this.#bytes += Buffer.byteLength(body);
      this.#torn = false;
      this.#unwritten = [];
    });
    this.#tail = written.catch(() => undefined);
    if (this.#bytes > Math.max(COMPACT_BYTES, 2 * this.#compactedBytes) && !this.#compacting) {
      this.#compacting = true;
      this.#tail = this.#tail.then(() => this.#compact()).finally(() => (this.#compacting = false));
    }
    return written;
  }

  /**
   * Rewrites the file to what still matters (#compacted), between two appends: atomically (a
   * temp file, fsync, rename, fsync of the folder), so a kill -9 at any point leaves either the
   * old file or the new one, each whole. A failure (a full disk) keeps the old file and waits
   * until it has doubled again.
   */
  async #compact(): Promise<void> {
    if (this.#unwritten.length > 0 || this.#handle === null) return;
    const kept = this.#compacted().join('');
    try {
      await writeFileAtomic(this.path, kept);
    } catch {
      this.#compactedBytes = this.#bytes;
      return;
    }
    // The handle still names the old file, now unlinked: appends go to the new one from here.
    const old = this.#handle;
    [this.#handle, this.#stale] = [null, true];
    this.#bytes = this.#compactedBytes = Buffer.byteLength(kept);
    await old.close().catch(() => undefined);
    this.#handle = await openDataFile(this.path, 'append').catch(() => null);
    this.#stale = this.#handle === null;
  }

  /** Writes what a full disk refused again, until it fits (the timer does not hold the process). */
  #retryLater(): void {
    if (this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#unwritten.length === 0 || (this.#handle === null && !this.#stale)) return;
      const last = this.#unwritten.pop() as string;
      this.#write(last, true).catch(() => undefined);
    }, RETRY_MS);
    this.#retry.unref();
  }
}

function line(record: OutboxRecord): string {
  return `${JSON.stringify(record)}\n`;
}
