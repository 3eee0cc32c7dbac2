/**
 * The event log's files: a folder `events/` in the data dir (0700) holding segment files
 * `events-<first id, 12 digits>.jsonl` (0600). Each segment starts with a header line (the format
 * marker, its first id, and a snapshot of the mod streams' acknowledged sequences) followed by
 * one event per line, ids consecutive. Retention deletes whole segments, so nothing is ever
 * rewritten in place.
 *
 * Loading rules (the same fault rules as the idempotency journal): a torn last line of the newest
 * segment (a crash mid-append: it has no newline) is cut off; it was never acknowledged to anyone.
 * A segment that is corrupt in any other way (a bad header, an unparseable complete line, ids that
 * do not follow each other) is set aside, renamed `<name>.corrupt-<epoch ms>` and never
 * overwritten, together with every older segment, so what remains is one gap-free run of ids; ids
 * continue above anything the set-aside file could have held.
 */
import { readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.ts';
import { syncFolder } from '../store/atomic-file.ts';
import { openDataFile, readDataBytes } from '../store/data-dir-fs.ts';
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

/** Byte offsets of each line start, plus the end of the last complete line. */
function lineOffsets(bytes: Buffer): { starts: number[]; complete: number } {
  const starts: number[] = [];
  let at = 0;
  let end = bytes.indexOf(10, at);
  while (end !== -1) {
    starts.push(at);
    at = end + 1;
    end = bytes.indexOf(10, at);
  }
  starts.push(at);
  return { starts, complete: at };
}

class CorruptSegment extends Error {}

interface Scanned {
  segment: Segment;
  streams: Map<string, number>;
  /** Bytes past the last complete line (a torn append), newest segment only. */
  tornAt: number | null;
}

function lineText(bytes: Buffer, starts: number[], index: number): string {
  return bytes.toString('utf8', starts[index], (starts[index + 1] ?? bytes.length) - 1);
}

/** Checks one segment; `full` parses every line (the newest segment), otherwise the first and last. */
function scanSegment(name: string, firstId: number, bytes: Buffer, full: boolean): Scanned {
  const { starts, complete } = lineOffsets(bytes);
  const torn = complete < bytes.length;
  if (torn && !full) throw new CorruptSegment(`${name} ends in an incomplete line`);
  const lines = starts.length - 1; // complete lines, header included
  if (lines < 1) throw new CorruptSegment(`${name} has no header`);
  const streams = parseHeader(lineText(bytes, starts, 0), firstId);
  if (!streams) throw new CorruptSegment(`${name} has an invalid header`);
  const offsets = starts.slice(1); // event line starts, then the end of the last complete line
  const segment: Segment = { name, firstId, offsets, lastStored: 0 };
  const count = offsets.length - 1;
  const check = full ? [...Array(count).keys()] : count > 0 ? [0, count - 1] : [];
  for (const index of check) {
    const event = parseEventLine(lineText(bytes, starts, index + 1));
    if (!event || event.id !== firstId + index) {
      throw new CorruptSegment(`${name} line ${index + 2} is not event ${firstId + index}`);
    }
    if (index === count - 1) segment.lastStored = event.stored;
    if (full && event.src) touchStream(streams, event.src.stream, event.src.seq);
  }
  return { segment, streams, tornAt: torn ? complete : null };
}

/** Records a stream's sequence and marks it most recently used. */
export function touchStream(streams: Map<string, number>, stream: string, seq: number): void {
  const previous = streams.get(stream) ?? 0;
  streams.delete(stream);
  streams.set(stream, Math.max(previous, seq));
}

/** Loads the folder (created by the caller), applying the fault rules above. */
export async function loadSegments(folder: string, log: Logger): Promise<LoadedLog> {
  const names = (await readdir(folder))
    .map((name) => ({ name, match: SEGMENT_NAME.exec(name) }))
    .filter((entry) => entry.match !== null)
    .map((entry) => ({ name: entry.name, firstId: Number(entry.match?.[1]) }))
    .sort((a, b) => a.firstId - b.firstId);
  const kept: Segment[] = [];
  let streams = new Map<string, number>();
  let nextId = 1;
  for (let i = names.length - 1; i >= 0; i -= 1) {
    const { name, firstId } = names[i] as { name: string; firstId: number };
    const newest = i === names.length - 1;
    const bytes = await readDataBytes(join(folder, name));
    try {
      const oldestKept = kept[0];
      const scanned = scanSegment(name, firstId, bytes, newest);
      if (oldestKept && segmentLastId(scanned.segment) + 1 !== oldestKept.firstId) {
        throw new CorruptSegment(`${name} does not end where ${oldestKept.name} begins`);
      }
      if (scanned.tornAt !== null) {
        log.warn('event log: cut a torn last line', { file: name, bytes: bytes.length - scanned.tornAt });
        await cutAt(join(folder, name), scanned.tornAt);
      }
      if (newest) {
        streams = scanned.streams;
        nextId = segmentLastId(scanned.segment) + 1;
      }
      kept.unshift(scanned.segment);
    } catch (error) {
      if (!(error instanceof CorruptSegment)) throw error;
      // Ids continue above anything this file could hold: one id per line it has.
      if (newest) nextId = firstId + bytes.toString('utf8').split('\n').length;
      await setAside(folder, names.slice(0, i + 1), error.message, log);
      break;
    }
  }
  return { segments: kept, nextId, streams };
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
