/**
 * Where the event log ends, read without opening it: what `modgate webhooks add` records as a
 * new endpoint's starting point (it receives only later events, docs/events.md). Read-only, so
 * it is safe beside a running daemon: the newest segment's last complete line gives the id
 * (segments.ts: ids are consecutive, a torn last line has no newline and does not count).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readDataText } from '../../store/data-dir-fs.ts';
import { errnoCode } from '../../store/errors.ts';
import { EVENTS_FOLDER, parseEventLine, SEGMENT_NAME, segmentName } from '../segments.ts';

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
  const text = await readDataText(join(folder, segmentName(newest)));
  const complete = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
  for (let i = complete.length - 1; i >= 0; i -= 1) {
    const line = parseEventLine(complete[i] as string);
    if (line !== null) return line.id;
  }
  return newest - 1;
}
