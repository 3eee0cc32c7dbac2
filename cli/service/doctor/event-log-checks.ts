/**
 * Doctor, event log: which event ids were lost to a damaged segment, and the damaged copies kept
 * beside the repaired ones (docs/events.md, "Damaged segments"). The daemon repairs a segment at
 * start-up, keeps every event it can read and writes a placeholder for each id it cannot; here
 * each segment is read line by line (never a whole file as one string) for those placeholders.
 * Nothing to report, nothing printed: a log that was never damaged needs no line.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MAX_LINE_BYTES } from '../../../daemon/events/event-log.ts';
import { readLines } from '../../../daemon/events/segment-lines.ts';
import { idRanges, lostIdOf } from '../../../daemon/events/segment-repair.ts';
import { EVENTS_FOLDER, SEGMENT_NAME } from '../../../daemon/events/segments.ts';
import { errorText, warn, type CheckResult } from './check.ts';

const SUBJECT = 'event log';
const WHY = 'docs/events.md, "Damaged segments"';

export async function checkEventLog(dir: string): Promise<CheckResult[]> {
  const folder = join(dir, EVENTS_FOLDER);
  let names: string[];
  try {
    names = (await readdir(folder)).sort();
  } catch {
    return []; // no event log yet: the daemon creates it
  }
  const results: CheckResult[] = [];
  for (const name of names.filter((entry) => SEGMENT_NAME.test(entry))) {
    try {
      const lost = await lostIds(join(folder, name));
      if (lost.length === 0) continue;
      const message = `${name}: event ids ${idRanges(lost)} were lost to damage (${lost.length} id${lost.length === 1 ? '' : 's'})`;
      results.push(warn(SUBJECT, message, `nothing to repair: every other event is served (${WHY})`));
    } catch (error) {
      results.push(warn(SUBJECT, `${name}: ${errorText(error)}`, `see ${WHY}`));
    }
  }
  const copies = names.filter((entry) => /\.corrupt-\d+$/.test(entry));
  if (copies.length > 0) {
    const message = `damaged copies kept: ${copies.join(', ')}`;
    results.push(
      warn(SUBJECT, message, `delete them once you no longer need them: rm ${join(folder, '*.corrupt-*')}`),
    );
  }
  return results;
}

/** The placeholder ids of one segment. */
async function lostIds(path: string): Promise<number[]> {
  const lost: number[] = [];
  for await (const { text } of readLines(path, DEFAULT_MAX_LINE_BYTES)) {
    const id = text === null ? null : lostIdOf(text);
    if (id !== null) lost.push(id);
  }
  return lost;
}
