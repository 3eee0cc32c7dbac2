/**
 * Loading the event log's segments at start-up (the files: segments.ts). A torn last line of the
 * newest segment (a crash mid-append: it has no newline) is cut off; it was never acknowledged to
 * anyone. Every line of the newest segment is checked, and the header, first and last line of
 * each older one, plus that it ends where the next begins (the file is read as a stream of lines,
 * segment-lines.ts, so no line is ever one huge string). A line checked that is not its event (a
 * line added, split, merged or garbled, one past the line limit, a bad header) means damage: the
 * segment is repaired (segment-repair.ts): its readable events are kept, the ids that cannot be
 * read get placeholders and are named (log, `modgate_event_log_ids_lost_total`, `modgate
 * doctor`), the damaged file stays beside it as `<name>.corrupt-<epoch ms>`, and every other
 * segment is served as before. Ids continue above anything the damaged file could hold. A line
 * of an older segment not checked here that cannot be read is skipped by the readers
 * (segment-reader.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/log.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import { readLines, type LineAt, type LinesEnd } from './segment-lines.ts';
import { idRanges, lostIdOf, repairSegment } from './segment-repair.ts';
import {
  parseEventLine,
  parseHeader,
  SEGMENT_NAME,
  segmentLastId,
  touchStream,
  type EventLine,
  type Segment,
} from './segments.ts';

export interface LoadedLog {
  segments: Segment[];
  /** The next id to assign. */
  nextId: number;
  /** Highest acknowledged sequence per mod stream, oldest use first. */
  streams: Map<string, number>;
  /** Ids of placeholder lines found while loading (readers skip them). */
  unreadable: number[];
  /** Ids whose events were lost to damage repaired while loading. */
  lost: number[];
}

class CorruptSegment extends Error {}

interface Scanned {
  segment: Segment;
  streams: Map<string, number>;
  /** Bytes past the last complete line (a torn append), newest segment only. */
  tornAt: number | null;
  /** Ids of placeholder lines met (events lost to an earlier repair). */
  unreadable: number[];
}

/**
 * Checks one segment, reading it as a stream of lines (never the whole file as one string):
 * `full` parses every line (the newest segment), otherwise the header, the first and the last.
 * A placeholder of a lost id is unreadable (readers skip it); any other line checked that is not
 * its event (too long, not an event, the wrong id) is damage: CorruptSegment.
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
    if (event?.id === id) return event;
    // A placeholder keeps an id lost to an earlier repair; any other line that is not its event
    // is damage (a line added, split, merged or garbled): the segment is repaired.
    if (event || text === null || lostIdOf(text) !== id) {
      throw new CorruptSegment(`${name} line ${id - firstId + 2} is not event ${id}`);
    }
    unreadable.push(id);
    return null;
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
  const lost: number[] = [];
  for (let i = names.length - 1; i >= 0; i -= 1) {
    const { name, firstId } = names[i] as { name: string; firstId: number };
    const newest = i === names.length - 1;
    const next = kept[0];
    const load = () => loadOne(folder, name, firstId, newest, next, maxLineBytes, log);
    let scanned: Scanned;
    try {
      scanned = await load();
    } catch (error) {
      if (!(error instanceof CorruptSegment)) throw error;
      const lastId = next ? next.firstId - 1 : Number.POSITIVE_INFINITY;
      const repair = await repairSegment(folder, name, firstId, lastId, maxLineBytes);
      log.error('event log: repaired a damaged segment; the ids that could not be read are lost', {
        reason: error.message,
        file: name,
        damaged_copy: repair.aside,
        events_kept: repair.kept,
        ids_lost: idRanges(repair.lost),
      });
      lost.push(...repair.lost);
      scanned = await load();
    }
    unreadable.push(...scanned.unreadable);
    if (newest) {
      streams = scanned.streams;
      nextId = segmentLastId(scanned.segment) + 1;
    }
    kept.unshift(scanned.segment);
  }
  return { segments: kept, nextId, streams, unreadable, lost: lost.sort((a, b) => a - b) };
}

/** Scans one segment, checks that it ends where the next one begins, cuts a torn last line. */
async function loadOne(
  folder: string,
  name: string,
  firstId: number,
  newest: boolean,
  next: Segment | undefined,
  maxLineBytes: number,
  log: Logger,
): Promise<Scanned> {
  const path = join(folder, name);
  const scanned = await scanSegment(path, name, firstId, newest, maxLineBytes);
  if (next && segmentLastId(scanned.segment) + 1 !== next.firstId) {
    throw new CorruptSegment(`${name} does not end where ${next.name} begins`);
  }
  if (scanned.tornAt !== null) {
    log.warn('event log: cut a torn last line', { file: name, at: scanned.tornAt });
    await cutAt(path, scanned.tornAt);
  }
  return scanned;
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
