import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileEventLog } from '../../../../daemon/events/event-log.ts';
import { EVENTS_FOLDER, segmentName } from '../../../../daemon/events/segments.ts';
import { lastStoredEventId } from '../../../../daemon/events/webhooks/log-end.ts';
import { makeTempDir } from '../../store/temp-dir.ts';

const joined = (n: number) => ({ type: 'player.joined' as const, data: { n } });

describe('lastStoredEventId', () => {
  it('is 0 for a data dir with no event log yet', async () => {
    expect(await lastStoredEventId(await makeTempDir())).toBe(0);
  });

  it('is the id of the last complete line of the newest segment, a torn tail not counted', async () => {
    const dir = await makeTempDir();
    const log = await FileEventLog.open(dir, { segmentEvents: 3 });
    for (let n = 0; n < 5; n += 1) await log.append(joined(n));
    await log.close();
    expect(await lastStoredEventId(dir)).toBe(5);
    // A crash mid-append leaves a line without its newline: it was never stored.
    await appendFile(join(dir, EVENTS_FOLDER, segmentName(4)), '{"id":6,"type":"player.jo');
    expect(await lastStoredEventId(dir)).toBe(5);
  });
});
