import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_FILE, OutboxJournal } from '../../../../daemon/events/webhooks/outbox-journal.ts';
import { positionMarker } from '../../../../daemon/events/webhooks/outbox-state.ts';

const AT = new Date('2030-01-01T00:00:00Z');
const line = (endpoint: string, position: number) =>
  `${JSON.stringify(positionMarker(endpoint, position, AT))}\n`;

describe('the webhook outbox journal on disk', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-outbox-'));
    path = join(dir, OUTBOX_FILE);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('leaves an existing empty journal as it is, and appends its first record to it', async () => {
    await writeFile(path, '', { mode: 0o600 });
    const before = await stat(path);
    const journal = await OutboxJournal.open(dir, ['wh_a']);
    expect((await stat(path)).ino).toBe(before.ino);
    await journal.append(positionMarker('wh_a', 3, AT));
    await journal.close();
    expect(await readFile(path, 'utf8')).toBe(line('wh_a', 3));
  });

  it('creates an empty 0600 journal when there is none', async () => {
    const journal = await OutboxJournal.open(dir, []);
    expect(await readdir(dir)).toEqual([OUTBOX_FILE]);
    expect(await readFile(path, 'utf8')).toBe('');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await journal.close();
  });

  it('rewrites a journal of blank lines as an empty one', async () => {
    await writeFile(path, '\n\n', { mode: 0o600 });
    const journal = await OutboxJournal.open(dir, []);
    await journal.close();
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('compacts a journal holding more than twice what it needs, dropping removed endpoints', async () => {
    await writeFile(path, line('wh_a', 1) + line('wh_a', 2) + line('wh_a', 3) + line('wh_gone', 9), {
      mode: 0o600,
    });
    const journal = await OutboxJournal.open(dir, ['wh_a']);
    await journal.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((text) => JSON.parse(text) as unknown)).toEqual([
      expect.objectContaining({ endpoint: 'wh_a', outcome: 'skipped', last_event: 3 }),
    ]);
  });
});
