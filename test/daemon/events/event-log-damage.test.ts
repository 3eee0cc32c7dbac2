import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileEventLog } from '../../../daemon/events/event-log.ts';
import { EVENTS_FOLDER, segmentName } from '../../../daemon/events/segments.ts';
import type { LogFields, Logger } from '../../../daemon/log/log.ts';
import { makeTempDir } from '../store/temp-dir.ts';

/** Three segments of five events: ids 1-5, 6-10 (an older one) and 11-15 (the newest). */
const SEGMENT_EVENTS = 5;
const ALL_IDS = Array.from({ length: 15 }, (_, n) => n + 1);

type Damage = (lines: string[], at: number) => void;

/** What one damaged byte or line does to a segment's lines (`at`: an event line's index). */
const DAMAGE: Record<string, { damage: Damage; lost: (id: number) => number[] }> = {
  'an extra line before it': { damage: (lines, at) => lines.splice(at, 0, 'garbage'), lost: () => [] },
  'a byte inside it turned into a newline': {
    damage: (lines, at) => {
      const line = lines[at] as string;
      const middle = Math.floor(line.length / 2);
      lines.splice(at, 1, line.slice(0, middle), line.slice(middle + 1));
    },
    lost: (id) => [id],
  },
  'its newline turned into another byte': {
    damage: (lines, at) => {
      // The last event's own newline would make a torn append, so the last two are merged then.
      const first = at === lines.length - 2 ? at - 1 : at;
      lines.splice(first, 2, `${lines[first]}x${lines[first + 1]}`);
    },
    lost: () => [],
  },
};

/** A log of 15 events; returns the data dir. */
async function writtenLog(): Promise<string> {
  const dir = await makeTempDir();
  const eventLog = await FileEventLog.open(dir, { segmentEvents: SEGMENT_EVENTS });
  for (let n = 0; n < 15; n += 1) await eventLog.append({ type: 'player.joined', data: { n } });
  await eventLog.close();
  return dir;
}

function recordingLogger(): { log: Logger; errors: { message: string; fields: LogFields }[] } {
  const errors: { message: string; fields: LogFields }[] = [];
  const ignore = (): void => {};
  return {
    errors,
    log: {
      debug: ignore,
      info: ignore,
      warn: ignore,
      error: (message, fields = {}) => errors.push({ message, fields }),
    },
  };
}

async function reopen(dir: string, log: Logger = recordingLogger().log) {
  const lost = { count: 0 };
  const eventLog = await FileEventLog.open(dir, {
    segmentEvents: SEGMENT_EVENTS,
    log,
    metrics: {
      eventLineSkipped: () => {},
      eventsNotStored: () => {},
      eventIdsLost: (n) => void (lost.count += n),
    },
  });
  return { eventLog, lost };
}

function readIds(eventLog: FileEventLog): number[] {
  const read = eventLog.readAfter(0, 100);
  if (!Array.isArray(read)) throw new Error(`expected events, got gone (oldest ${read.oldestId})`);
  return read.map((event) => event.id);
}

const SEGMENTS = { 'the newest segment': 11, 'an older segment': 6 };
const POSITIONS = { start: 0, middle: 2, end: 4 };

describe('FileEventLog with a damaged segment', () => {
  const cases = Object.entries(SEGMENTS).flatMap(([segment, firstId]) =>
    Object.entries(POSITIONS).flatMap(([position, index]) =>
      Object.keys(DAMAGE).map((damage) => ({ segment, firstId, position, index, damage })),
    ),
  );

  it.each(cases)(
    'keeps every readable event of $segment with $damage at its $position, naming the ids lost',
    async ({ firstId, index, damage }) => {
      const dir = await writtenLog();
      const file = join(dir, EVENTS_FOLDER, segmentName(firstId));
      const lines = (await readFile(file, 'utf8')).split('\n');
      const { damage: hurt, lost: lostOf } = DAMAGE[damage] as (typeof DAMAGE)[string];
      hurt(lines, 1 + index);
      const damaged = lines.join('\n');
      await writeFile(file, damaged);
      const expectedLost = lostOf(firstId + index);

      const { log, errors } = recordingLogger();
      const { eventLog, lost } = await reopen(dir, log);
      expect(readIds(eventLog)).toEqual(ALL_IDS.filter((id) => !expectedLost.includes(id)));
      expect(lost.count).toBe(expectedLost.length);
      expect(errors).toEqual([
        expect.objectContaining({
          message: expect.stringContaining('repaired a damaged segment') as string,
          fields: expect.objectContaining({
            file: segmentName(firstId),
            ids_lost: expectedLost.join(', '),
          }) as LogFields,
        }),
      ]);
      expect((await eventLog.append({ type: 'player.joined', data: { n: 15 } }))?.id).toBe(16);
      await eventLog.close();

      const names = await readdir(join(dir, EVENTS_FOLDER));
      const aside = names.filter((name) => name.startsWith(`${segmentName(firstId)}.corrupt-`));
      expect(aside).toHaveLength(1);
      expect(await readFile(join(dir, EVENTS_FOLDER, aside[0] as string), 'utf8')).toBe(damaged);

      // The repair is durable: the next start finds nothing to repair and reads the same events.
      const again = await reopen(dir);
      expect(readIds(again.eventLog)).toEqual([...ALL_IDS.filter((id) => !expectedLost.includes(id)), 16]);
      expect(again.lost.count).toBe(0);
      await again.eventLog.close();
    },
  );

  it('never reuses the id of a last event whose id was split by a newline', async () => {
    const dir = await writtenLog();
    const file = join(dir, EVENTS_FOLDER, segmentName(11));
    await writeFile(file, (await readFile(file, 'utf8')).replace('{"id":15,', '{"id":1\n5,'));
    const { eventLog, lost } = await reopen(dir);
    expect(readIds(eventLog)).toEqual(ALL_IDS.slice(0, 14));
    expect(lost.count).toBe(1);
    expect((await eventLog.append({ type: 'player.joined', data: { n: 15 } }))?.id).toBe(16);
    await eventLog.close();
  });
});
