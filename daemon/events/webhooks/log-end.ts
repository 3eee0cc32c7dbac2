/**
 * Where the event log ends, read without opening it: where a new endpoint starts (it receives
 * only later events, docs/events.md) when the CLI's in-process admin registers it with no daemon
 * running (daemon/admin/offline-services.ts). Read-only. The newest segment's newlines are counted in chunks
 * (segment-lines.ts), never read as one string: ids are consecutive from the segment's first id,
 * one per line after the header, an unreadable line keeping its id, and a torn last line (no
 * newline) does not count (segment-load.ts); a repaired segment has a placeholder line per lost id.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../../store/errors.ts';
import { countLines } from '../segment-lines.ts';
import { EVENTS_FOLDER, SEGMENT_NAME, segmentName } from '../segments.ts';

/** The highest event id stored in `dataDir`; 0 when there is no log yet. */
export async function lastStoredEventId(dataDir: string): Promise<number> {
  const folder = join(dataDir, EVENTS_FOLDER);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 0;
    throw error;
  }
  const firstIds = names
    .map((name) => SEGMENT_NAME.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  const newest = firstIds[0];
  if (newest === undefined) return 0;
  // countLines is newlines + 1: the header, one line per event, then the (torn or empty) tail.
  const lines = await countLines(join(folder, segmentName(newest)));
  return newest - 1 + Math.max(0, lines - 2);
}
