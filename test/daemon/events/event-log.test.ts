import { createHook } from 'node:async_hooks';
import { appendFile, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileEventLog } from '../../../daemon/events/event-log.ts';
import { EVENTS_FOLDER, segmentName } from '../../../daemon/events/segments.ts';
import type { StoredEvent } from '../../../daemon/events/types.ts';
import { makeTempDir } from '../store/temp-dir.ts';

const joined = (n: number) => ({ type: 'player.joined' as const, data: { n } });

async function appendMany(eventLog: FileEventLog, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, n) => eventLog.append(joined(n))));
}

function events(result: StoredEvent[] | { gone: true }): StoredEvent[] {
  if (!Array.isArray(result)) throw new Error('expected events, got gone');
  return result;
}

describe('FileEventLog', () => {
  it('assigns increasing ids from 1 and reads back what was appended, oldest first', async () => {
    const eventLog = await FileEventLog.open(await makeTempDir());
    await appendMany(eventLog, 5);
    expect(eventLog.lastId()).toBe(5);
    const read = events(eventLog.readAfter(2, 2));
    expect(read.map((e) => e.id)).toEqual([3, 4]);
    expect(read[0]).toMatchObject({ type: 'player.joined', data: { n: 2 } });
    expect(Object.keys(read[0] as object).sort()).toEqual(['at', 'data', 'id', 'type']);
    expect(events(eventLog.readAfter(5, 10))).toEqual([]);
    await eventLog.close();
  });

  it('tells subscribers about each event once it is durable, in id order', async () => {
    const eventLog = await FileEventLog.open(await makeTempDir());
    const seen: number[] = [];
    const stop = eventLog.subscribe((event) => {
      seen.push(event.id);
      expect(eventLog.lastId()).toBeGreaterThanOrEqual(event.id);
    });
    await appendMany(eventLog, 3);
    stop();
    await eventLog.append(joined(9));
    expect(seen).toEqual([1, 2, 3]);
    await eventLog.close();
  });

  it('keeps ids increasing across a restart and writes files only its owner can read', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    await appendMany(first, 3);
    await first.close();
    const second = await FileEventLog.open(dir);
    expect(second.lastId()).toBe(3);
    expect((await second.append(joined(3)))?.id).toBe(4);
    expect(events(second.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 2, 3, 4]);
    await second.close();
    const folder = join(dir, EVENTS_FOLDER);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    for (const name of await readdir(folder))
      expect((await stat(join(folder, name))).mode & 0o777).toBe(0o600);
  });

  it('cuts a torn last line on open and goes on appending after it', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    await appendMany(first, 2);
    await first.close();
    const file = join(dir, EVENTS_FOLDER, segmentName(1));
    await appendFile(file, '{"id":3,"type":"player.jo');
    const second = await FileEventLog.open(dir);
    expect(second.lastId()).toBe(2);
    await second.append(joined(2));
    expect(events(second.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 2, 3]);
    await second.close();
  });

  it('repairs a segment whose ids misalign, keeping the damaged file beside it, and never reuses its ids', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    await appendMany(first, 3);
    await first.close();
    const file = join(dir, EVENTS_FOLDER, segmentName(1));
    const original = await readFile(file, 'utf8');
    const lines = original.split('\n');
    lines[2] = (lines[2] as string).replace('"id":2', '"id":7'); // lines lost or merged: ids misalign
    await writeFile(file, lines.join('\n'));
    const second = await FileEventLog.open(dir);
    expect(second.lastId()).toBe(3);
    const next = await second.append(joined(0));
    expect(next?.id).toBe(4);
    expect(events(second.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 3, 4]);
    await second.close();
    const names = await readdir(join(dir, EVENTS_FOLDER));
    const aside = names.find((name) => name.includes('.corrupt-')) as string;
    expect(await readFile(join(dir, EVENTS_FOLDER, aside), 'utf8')).toBe(lines.join('\n'));
  });

  it('keeps no descriptor open on the damaged file it kept aside', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    await appendMany(first, 3);
    await first.close();
    const file = join(dir, EVENTS_FOLDER, segmentName(1));
    await writeFile(file, (await readFile(file, 'utf8')).replace('"id":2', '"id":7'));
    const second = await FileEventLog.open(dir);
    try {
      // Every descriptor of this process, by what it points at: none at the set-aside file.
      const fds = await readdir('/proc/self/fd');
      const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      expect(targets.filter((target) => target.includes('.corrupt-'))).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('drops whole segments past the count and answers gone for a position before them', async () => {
    const eventLog = await FileEventLog.open(await makeTempDir(), { maxEvents: 4, segmentEvents: 2 });
    for (let n = 0; n < 10; n += 1) await eventLog.append(joined(n));
    expect(eventLog.lastId()).toBe(10);
    expect(eventLog.oldestId()).toBeGreaterThan(1);
    expect(eventLog.readAfter(0, 10)).toEqual({ gone: true, oldestId: eventLog.oldestId() });
    const kept = events(eventLog.readAfter(eventLog.oldestId() - 1, 100));
    expect(kept.at(-1)?.id).toBe(10);
    expect(kept.length).toBeGreaterThanOrEqual(4);
    await eventLog.close();
  });

  it('drops events older than the age limit, keeping the id sequence', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir, { maxAgeMs: 1_000, now: () => now });
    await appendMany(first, 3);
    await first.close();
    now += 5_000;
    const second = await FileEventLog.open(dir, { maxAgeMs: 1_000, now: () => now });
    expect(second.lastId()).toBe(3);
    expect(second.readAfter(0, 10)).toEqual({ gone: true, oldestId: 4 });
    expect(events(second.readAfter(3, 10))).toEqual([]);
    expect((await second.append(joined(3)))?.id).toBe(4);
    await second.close();
  });

  it('stores a mod stream sequence once, even when it repeats across a restart', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    const from = (seq: number) => ({ ...joined(seq), source: { stream: 's1', seq } });
    expect((await first.append(from(1)))?.id).toBe(1);
    expect(await first.append(from(1))).toBeNull();
    await first.close();
    const second = await FileEventLog.open(dir);
    expect(second.streamSeq('s1')).toBe(1);
    expect(await second.append(from(1))).toBeNull();
    expect((await second.append(from(2)))?.id).toBe(2);
    await second.close();
  });

  it('skips a line that is not an event, counts it once, and reads on past it', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir);
    await appendMany(first, 3);
    await first.close();
    const file = join(dir, EVENTS_FOLDER, segmentName(1));
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = 'not json';
    await writeFile(file, lines.join('\n'));
    const skipped = counter();
    const second = await FileEventLog.open(dir, { metrics: skipped.metrics });
    expect(second.lastId()).toBe(3);
    expect(events(second.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 3]);
    expect(second.readPage(1, 1)).toEqual({ events: [], through: 2 });
    expect(events(second.readAfter(1, 1)).map((e) => e.id)).toEqual([3]);
    expect(skipped.lines).toBe(1);
    expect((await second.append(joined(3)))?.id).toBe(4);
    await second.close();
  });

  it('skips a line longer than the limit without reading it, at start-up and in every read', async () => {
    const dir = await makeTempDir();
    const first = await FileEventLog.open(dir, { segmentEvents: 2 });
    await appendMany(first, 4);
    await first.close();
    // Written by hand before start: event 2 of the older segment, far past the line limit.
    const older = join(dir, EVENTS_FOLDER, segmentName(1));
    const lines = (await readFile(older, 'utf8')).split('\n');
    lines[2] = JSON.stringify({
      id: 2,
      type: 'player.joined',
      at: 'x',
      data: { pad: 'x'.repeat(50_000) },
      stored: 1,
    });
    await writeFile(older, lines.join('\n'));
    const newer = join(dir, EVENTS_FOLDER, segmentName(3));
    await appendFile(
      newer,
      `${JSON.stringify({ id: 5, type: 'player.joined', at: 'x', data: { pad: 'y'.repeat(50_000) }, stored: 1 })}\n`,
    );
    const skipped = counter();
    const second = await FileEventLog.open(dir, {
      maxLineBytes: 4_096,
      segmentEvents: 2,
      metrics: skipped.metrics,
    });
    expect(second.lastId()).toBe(5);
    expect(events(second.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 3, 4]);
    expect(events(second.readAfter(4, 10))).toEqual([]);
    expect(second.readPage(4, 10)).toEqual({ events: [], through: 5 });
    expect(skipped.lines).toBe(2);
    expect((await second.append(joined(6)))?.id).toBe(6);
    expect(events(second.readAfter(4, 10)).map((e) => e.id)).toEqual([6]);
    await second.close();
  });

  it('rolls to a new segment once a segment holds segmentBytes, whatever its count', async () => {
    const dir = await makeTempDir();
    const eventLog = await FileEventLog.open(dir, { segmentBytes: 4_096 });
    for (let n = 0; n < 8; n += 1)
      await eventLog.append({ type: 'player.joined', data: { pad: 'z'.repeat(1_000) } });
    const names = (await readdir(join(dir, EVENTS_FOLDER))).sort();
    expect(names.length).toBeGreaterThanOrEqual(2);
    for (const name of names)
      expect((await stat(join(dir, EVENTS_FOLDER, name))).size).toBeLessThan(4_096 + 1_100);
    expect(events(eventLog.readAfter(0, 10)).map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await eventLog.close();
    const again = await FileEventLog.open(dir, { segmentBytes: 4_096 });
    expect(events(again.readAfter(0, 10))).toHaveLength(8);
    await again.close();
  });
});

/** Counts the lines the log reports skipped (the metric). */
function counter() {
  const seen = { lines: 0 };
  return {
    get lines() {
      return seen.lines;
    },
    metrics: {
      eventLineSkipped: () => void (seen.lines += 1),
      eventsNotStored: () => {},
      eventIdsLost: () => {},
    },
  };
}

describe('FileEventLog retention timer', () => {
  /** The timers event-log.ts arms while `work` runs. */
  async function timersArmedBy(work: () => Promise<void>): Promise<number> {
    let armed = 0;
    const spy = createHook({
      init: (_id, type) => {
        if (type === 'Timeout' && (new Error().stack ?? '').includes('/daemon/events/event-log.ts')) armed++;
      },
    });
    spy.enable();
    try {
      await work();
    } finally {
      spy.disable();
    }
    return armed;
  }

  it('arms no timer while the log holds no event, and its retention check once it holds one', async () => {
    let eventLog: FileEventLog | undefined;
    const dir = await makeTempDir();
    expect(await timersArmedBy(async () => void (eventLog = await FileEventLog.open(dir)))).toBe(0);
    const log = eventLog as FileEventLog;
    expect(await timersArmedBy(() => appendMany(log, 2))).toBe(1);
    await log.close();
  });
});
