/**
 * The event log's files: a folder `events/` in the data dir (0700) holding segment files
 * `events-<first id, 12 digits>.jsonl` (0600). Each segment starts with a header line (the format
 * marker, its first id, and a snapshot of the mod streams' acknowledged sequences) followed by
 * one event per line, ids consecutive. Retention deletes whole segments, so nothing is ever
 * rewritten in place (a damaged segment is replaced whole by its repair, segment-repair.ts).
 *
 * How they are loaded at start-up, and what happens to a damaged one: segment-load.ts.
 */
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

/** Parses a segment's header line; null when it is not the header of a segment starting at `firstId`. */
export function parseHeader(text: string, firstId: number): Map<string, number> | null {
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

/** Records a stream's sequence and marks it most recently used. */
export function touchStream(streams: Map<string, number>, stream: string, seq: number): void {
  const previous = streams.get(stream) ?? 0;
  streams.delete(stream);
  streams.set(stream, Math.max(previous, seq));
}
