/**
 * The event log's files: a folder `events/` in the data dir (0700) holding segment files
 * `events-<first id, 12 digits>.jsonl` (0600). Each segment starts with a header line (the format
 * marker, its first id, and a snapshot of the mod streams' acknowledged sequences) followed by
 * one event per line, ids consecutive. Retention deletes whole segments, so nothing is ever
 * rewritten in place.
 *
 * Loading rules (the same fault rules as the idempotency journal): a torn last line of the newest
 * segment (a crash mid-append: it has no newline) is cut off; it was never acknowledged to anyone.
 * A complete line that is not an event, or longer than the line limit, is unreadable: it keeps
 * its id and readers skip it (the file is read as a stream of lines, segment-lines.ts, so no line
 * is ever one huge string). A segment whose lines no longer match its ids (a bad header, a line
 * that parses with the wrong id: lines lost or merged) is set aside, renamed
 * `<name>.corrupt-<epoch ms>` and never overwritten, together with every older segment, so what
 * remains is one gap-free run of ids; ids continue above anything the set-aside file could hold.
 */
import { readdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/log.ts';
import { syncFolder } from '../store/atomic-file.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import { countLines, readLines, type LineAt, type LinesEnd } from './segment-lines.ts';
import { isEventType, type StoredEvent } from './types.ts';

export const EVENTS_FOLDER = 'events';
export const HEADER_MARK = 'modgate_events';
export const SEGMENT_NAME = /^events-(\d{12})\.jsonl$/;

/** Which mod stream an event came from and its sequence there (PROTOCOL §9). */
export interface EventSource {
  readonly stream: string;
  readonly seq: number;
}

/** One line of a segment: the served event plus what only the log needs. */
export interface EventLine extends StoredEvent {
  /** When the daemon stored it (epoch ms); retention by age uses this, not the game's clock. */
  readonly stored: number;
  readonly src?: EventSource;
}

export interface Segment {
  readonly name: string;
  readonly firstId: number;
  /** Byte offset of each event line, then one past the last line's newline. */
  readonly offsets: number[];
  /** `stored` of the newest event, 0 while the segment is empty. */
  lastStored: number;
}

export interface LoadedLog {
  segments: Segment[];
  /** The next id to assign. */
  nextId: number;
  /** Highest acknowledged sequence per mod stream, oldest use first. */
  streams: Map<string, number>;
  /** Ids whose lines were found unreadable while loading (readers skip them). */
  unreadable: number[];
}

export function segmentName(firstId: number): string {
  return `events-${String(firstId).padStart(12, '0')}.jsonl`;
}

export function segmentLastId(segment: Segment): number {
  return segment.firstId + segment.offsets.length - 2;
}

export function headerLine(firstId: number, streams: ReadonlyMap<string, number>): string {
  return `${JSON.stringify({ [HEADER_MARK]: 1, first_id: firstId, streams: Object.fromEntries(streams) })}\n`;
}

export function eventLine(event: EventLine): string {
  const { id, type, at, data, stored, src } = event;
  return `${JSON.stringify(src ? { id, type, at, data, stored, src } : { id, type, at, data, stored })}\n`;
}

/** Parses one event line; null when it is not one. */
export function parseEventLine(text: string): EventLine | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { id, type, at, data, stored, src } = value as Record<string, unknown>;
  const valid =
    Number.isSafeInteger(id) &&
    typeof type === 'string' &&
    isEventType(type) &&
    typeof at === 'string' &&
    typeof data === 'object' &&
    data !== null &&
    typeof stored === 'number';
  if (!valid) return null;
  const line: EventLine = { id: id as number, type, at, data: data as Record<string, unknown>, stored };
  return isSource(src) ? { ...line, src } : line;
}

function isSource(value: unknown): value is EventSource {
  if (typeof value !== 'object' || value === null) return false;
  const { stream, seq } = value as Record<string, unknown>;
  return typeof stream === 'string' && Number.isSafeInteger(seq);
}

function parseHeader(text: string, firstId: number): Map<string, number> | null {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value[HEADER_MARK] !== 1 || value['first_id'] !== firstId) return null;
    const streams = value['streams'];
    if (typeof streams !== 'object' || streams === null) return null;
    const map = new Map<string, number>();
    for (const [stream, seq] of Object.entries(streams)) if (Number.isSafeInteger(seq)) map.set(stream, seq);
    return map;
  } catch {
    return null;
  }
}

class CorruptSegment extends Error {}

interface Scanned {
  segment: Segment;
  streams: Map<string, number>;
  /** Bytes past the last complete line (a torn append), newest segment only. */
  tornAt: number | null;
  /** Ids of event lines that cannot be read (longer than the limit, or not an event). */
  unreadable: number[];
}

/**
 * Checks one segment, reading it as a stream of lines (never the whole file as one string):
 * `full` parses every line (the newest segment), otherwise the header, the first and the last.
 * A line longer than `maxLineBytes`, or a complete line that is not an event, is unreadable:
 * its id is kept (ids stay consecutive) and readers skip it. A parseable line with the wrong id
 * means lines were lost or merged: the segment is corrupt.
 */
async function scanSegment(
  path: string,
  name: string,
  firstId: number,
  full: boolean,
  maxLineBytes: number,
): Promise<Scanned> {
  const offsets: number[] = [];
  const unreadable: number[] = [];
  let streams: Map<string, number> | null = null;
  let last: { id: number; text: string | null } | null = null;
  let newest: EventLine | null = null;
  const check = (id: number, text: string | null): EventLine | null => {
    const event = text === null ? null : parseEventLine(text);
    if (!event) unreadable.push(id);
    else if (event.id !== id) throw new CorruptSegment(`${name} line ${id - firstId + 2} is not event ${id}`);
    return event;
  };
  const lines = readLines(path, maxLineBytes);
  let step: IteratorResult<LineAt, LinesEnd>;
  try {
    for (step = await lines.next(); !step.done; step = await lines.next()) {
      const { start, text } = step.value;
      if (streams === null) {
        streams = text === null ? null : parseHeader(text, firstId);
        if (!streams) throw new CorruptSegment(`${name} has an invalid header`);
        continue;
      }
      const id = firstId + offsets.length;
      offsets.push(start);
      if (!full && id !== firstId) {
        last = { id, text };
        continue;
      }
      newest = check(id, text);
      if (newest?.src) touchStream(streams, newest.src.stream, newest.src.seq);
    }
  } finally {
    // A corrupt segment throws out of the loop: ending the reader closes its file (readLines'
    // finally), which an abandoned generator would leave to the garbage collector.
    await lines.return(undefined as unknown as LinesEnd);
  }
  const { complete, size } = step.value;
  if (!streams) throw new CorruptSegment(`${name} has no header`);
  if (complete < size && !full) throw new CorruptSegment(`${name} ends in an incomplete line`);
  if (last) newest = check(last.id, last.text);
  offsets.push(complete);
  const segment: Segment = { name, firstId, offsets, lastStored: 0 };
  if (offsets.length > 1) {
    const lastIsReadable = newest !== null && newest.id === segmentLastId(segment);
    segment.lastStored = lastIsReadable ? (newest as EventLine).stored : (await stat(path)).mtimeMs;
  }
  return { segment, streams, tornAt: complete < size ? complete : null, unreadable };
}

/** Records a stream's sequence and marks it most recently used. */
export function touchStream(streams: Map<string, number>, stream: string, seq: number): void {
  const previous = streams.get(stream) ?? 0;
  streams.delete(stream);
  streams.set(stream, Math.max(previous, seq));
}

/** Loads the folder (created by the caller), applying the fault rules above. */
export async function loadSegments(folder: string, log: Logger, maxLineBytes: number): Promise<LoadedLog> {
  const names = (await readdir(folder))
    .map((name) => ({ name, match: SEGMENT_NAME.exec(name) }))
    .filter((entry) => entry.match !== null)
    .map((entry) => ({ name: entry.name, firstId: Number(entry.match?.[1]) }))
    .sort((a, b) => a.firstId - b.firstId);
  const kept: Segment[] = [];
  let streams = new Map<string, number>();
  let nextId = 1;
  const unreadable: number[] = [];
  for (let i = names.length - 1; i >= 0; i -= 1) {
    const { name, firstId } = names[i] as { name: string; firstId: number };
    const newest = i === names.length - 1;
    const path = join(folder, name);
    try {
      const oldestKept = kept[0];
      const scanned = await scanSegment(path, name, firstId, newest, maxLineBytes);
      if (oldestKept && segmentLastId(scanned.segment) + 1 !== oldestKept.firstId) {
        throw new CorruptSegment(`${name} does not end where ${oldestKept.name} begins`);
      }
      if (scanned.tornAt !== null) {
        log.warn('event log: cut a torn last line', { file: name, at: scanned.tornAt });
        await cutAt(path, scanned.tornAt);
      }
      unreadable.push(...scanned.unreadable);
      if (newest) {
        streams = scanned.streams;
        nextId = segmentLastId(scanned.segment) + 1;
      }
      kept.unshift(scanned.segment);
    } catch (error) {
      if (!(error instanceof CorruptSegment)) throw error;
      // Ids continue above anything this file could hold: one id per line it has.
      if (newest) nextId = firstId + (await countLines(path));
      await setAside(folder, names.slice(0, i + 1), error.message, log);
      break;
    }
  }
  return { segments: kept, nextId, streams, unreadable };
}

async function setAside(
  folder: string,
  entries: readonly { name: string }[],
  why: string,
  log: Logger,
): Promise<void> {
  const suffix = `.corrupt-${Date.now()}`;
  for (const { name } of entries) await rename(join(folder, name), join(folder, name + suffix));
  await syncFolder(folder);
  log.error('event log: set aside corrupt segments; older events are gone', {
    reason: why,
    files: entries.map((entry) => entry.name + suffix),
  });
}

/** Cuts a segment to `length` bytes through a handle, so a link at its name is not followed. */
async function cutAt(path: string, length: number): Promise<void> {
  const handle = await openDataFile(path, 'write');
  try {
    await handle.truncate(length);
  } finally {
    await handle.close();
  }
}
