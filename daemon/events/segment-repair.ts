/**
 * Repairing a damaged event segment: one whose lines no longer line up with their ids (a line
 * added between two events, an event split in two by a byte turned into a newline, two events
 * merged by a lost newline, a bad header). Every event that can still be read is kept in a
 * rewritten segment with one line per id again, so readers find each event by its position as
 * before; an id whose event cannot be read gets a placeholder line `{"lost":<id>}`, which every
 * reader skips as unreadable and `modgate doctor` lists. The damaged file stays beside it as
 * `<name>.corrupt-<epoch ms>` (a hard link, so no moment exists without the segment's name).
 *
 * How an event is found: a line that parses as an event is taken; a line that does not is cut at
 * each `{"id":` (where every event line starts) and each piece is tried with and without its last
 * byte (the newline that became another byte). An id is taken only if it is above the last one
 * taken, at most `lastId`, and not beyond the count of pieces read so far: a digit damaged into a
 * higher id cannot swallow the rest of the segment. The newest segment has no next segment to end
 * it: it ends at its last readable event, or past it at the highest id a damaged line names, or
 * one more when its last line is damaged and names none; ids go on above every id ever written.
 */
import { link, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_MODE, syncFolder, tempFileName } from '../store/atomic-file.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import { readLines, type LineAt, type LinesEnd } from './segment-lines.ts';
import { eventLine, headerLine, parseEventLine, parseHeader, type EventLine } from './segments.ts';

/** Where an event line starts; a piece of a damaged line is cut before each. */
const EVENT_START = '{"id":';
/** Bytes gathered before one write of the repaired file. */
const WRITE_BYTES = 1024 * 1024;

export interface Repair {
  /** Ids in the segment's range whose event could not be read. */
  lost: number[];
  /** Events kept. */
  kept: number;
  /** The damaged original's new name. */
  aside: string;
}

/** The placeholder line of an id whose event was lost; not an event, so readers skip it. */
export function lostLine(id: number): string {
  return `${JSON.stringify({ lost: id })}\n`;
}

/** The id of a placeholder line, or null when the line is not one. */
export function lostIdOf(text: string): number | null {
  const match = /^\{"lost":(\d+)\}$/.exec(text);
  return match ? Number(match[1]) : null;
}

/** The events a line may hold, in order: itself, or the pieces cut at each event start. */
function eventsIn(text: string): { events: EventLine[]; pieces: number } {
  const whole = parseEventLine(text);
  if (whole) return { events: [whole], pieces: 1 };
  const starts: number[] = [];
  for (let at = text.indexOf(EVENT_START); at !== -1; at = text.indexOf(EVENT_START, at + 1)) starts.push(at);
  const events: EventLine[] = [];
  starts.forEach((start, index) => {
    const piece = text.slice(start, starts[index + 1] ?? text.length);
    const event = parseEventLine(piece) ?? parseEventLine(piece.slice(0, -1));
    if (event) events.push(event);
  });
  return { events, pieces: Math.max(1, starts.length) };
}

/** Writes lines through one handle, a megabyte at a time. */
class LineWriter {
  #parts: string[] = [];
  #bytes = 0;
  #position = 0;
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async add(line: string): Promise<void> {
    this.#parts.push(line);
    this.#bytes += Buffer.byteLength(line);
    if (this.#bytes >= WRITE_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    const bytes = Buffer.from(this.#parts.join(''));
    this.#parts = [];
    this.#bytes = 0;
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.#handle.write(
        bytes,
        written,
        bytes.length - written,
        this.#position,
      );
      written += bytesWritten;
      this.#position += bytesWritten;
    }
  }
}

/**
 * Rewrites segment `name` (ids from `firstId`, at most `lastId`, Infinity for the newest) with
 * every event that can still be read, the original kept aside; says which ids were lost.
 */
export async function repairSegment(
  folder: string,
  name: string,
  firstId: number,
  lastId: number,
  maxLineBytes: number,
): Promise<Repair> {
  const path = join(folder, name);
  const temp = join(folder, tempFileName(path));
  const handle = await openDataFile(temp, 'createNew');
  let result: Omit<Repair, 'aside'>;
  try {
    await handle.chmod(FILE_MODE);
    result = await copyReadable(path, new LineWriter(handle), firstId, lastId, maxLineBytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  const aside = `${name}.corrupt-${Date.now()}`;
  await link(path, join(folder, aside));
  await rename(temp, path);
  await syncFolder(folder);
  return { ...result, aside };
}

/**
 * The events of a damaged segment, taken in id order into the repaired file, a placeholder for
 * every id between them.
 */
class Recovery {
  readonly lost: number[] = [];
  /** The next id to write. */
  next: number;
  /** Lines and merged pieces read so far: an id taken is never past `firstId + pieces - 1`. */
  #pieces = 0;
  /** The highest plausible id named (`"id":n`) in a line whose event could not be read. */
  #named = 0;
  /** Whether the last line read gave no event: it may have been the last event, damaged. */
  #trailing = false;
  readonly #out: LineWriter;
  readonly #firstId: number;
  readonly #lastId: number;

  constructor(out: LineWriter, firstId: number, lastId: number) {
    this.#out = out;
    this.#firstId = firstId;
    this.#lastId = lastId;
    this.next = firstId;
  }

  /** Writes the events of one line (null: longer than the limit) that fit where they belong. */
  async take(text: string | null): Promise<void> {
    const found = text === null ? { events: [], pieces: 1 } : eventsIn(text);
    this.#pieces += found.pieces;
    const limit = Math.min(this.#lastId, this.#firstId + this.#pieces - 1);
    let taken = false;
    for (const event of found.events) {
      if (event.id < this.next || event.id > limit) continue;
      while (this.next < event.id) await this.#placeholder();
      await this.#out.add(eventLine(event));
      this.next += 1;
      taken = true;
    }
    this.#trailing = !taken;
    if (!taken && text !== null) {
      for (const [, id] of text.matchAll(/"id":(\d+)/g))
        if (Number(id) >= this.next && Number(id) <= limit) this.#named = Math.max(this.#named, Number(id));
    }
  }

  /**
   * The newest segment's last id: the last event taken, or past it the highest id a damaged line
   * names, or one more for a damaged last line (or a torn one) that names none: ids then go on
   * above any that line could have held.
   */
  newestEnd(torn: boolean): number {
    const damagedLast = this.#trailing || torn ? this.next : 0;
    return Math.max(this.next - 1, this.#named, damagedLast);
  }

  /** Placeholders through `end`; what was kept and lost. */
  async finish(end: number): Promise<Omit<Repair, 'aside'>> {
    while (this.next <= end) await this.#placeholder();
    await this.#out.flush();
    return { lost: this.lost, kept: this.next - this.#firstId - this.lost.length };
  }

  async #placeholder(): Promise<void> {
    this.lost.push(this.next);
    await this.#out.add(lostLine(this.next));
    this.next += 1;
  }
}

/** Copies the readable events of `path` to `out`, a placeholder for every other id. */
async function copyReadable(
  path: string,
  out: LineWriter,
  firstId: number,
  lastId: number,
  maxLineBytes: number,
): Promise<Omit<Repair, 'aside'>> {
  const recovery = new Recovery(out, firstId, lastId);
  let header = false;
  const lines = readLines(path, maxLineBytes);
  let step: IteratorResult<LineAt, LinesEnd>;
  try {
    for (step = await lines.next(); !step.done; step = await lines.next()) {
      const { text } = step.value;
      if (!header) {
        header = true;
        const streams = text === null ? null : parseHeader(text, firstId);
        await out.add(headerLine(firstId, streams ?? new Map()));
        if (streams) continue;
      }
      await recovery.take(text);
    }
  } finally {
    await lines.return(undefined as unknown as LinesEnd);
  }
  if (!header) await out.add(headerLine(firstId, new Map()));
  const { complete, size } = step.value;
  if (Number.isFinite(lastId)) {
    // An older segment's last line without its newline is damage, not a crash mid-append: read it.
    if (complete < size) await recovery.take(await readTail(path, complete, size, maxLineBytes));
    return recovery.finish(lastId);
  }
  // The newest's is a torn append, never acknowledged (the mod sends it again): cut, as ever.
  return recovery.finish(recovery.newestEnd(complete < size));
}

/** The bytes of a last line without a newline, or null when longer than the line limit. */
async function readTail(
  path: string,
  from: number,
  size: number,
  maxLineBytes: number,
): Promise<string | null> {
  if (size - from > maxLineBytes) return null;
  const handle = await openDataFile(path, 'read');
  try {
    const buffer = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Ids as short ranges for a log line or doctor: `10-12, 15`. */
export function idRanges(ids: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && (ids[j + 1] as number) === (ids[j] as number) + 1) j += 1;
    ranges.push(i === j ? String(ids[i]) : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return ranges.join(', ');
}
