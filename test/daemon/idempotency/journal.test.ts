import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyJournal, JOURNAL_FILE, type JournalRecord } from '../../../daemon/idempotency/journal.ts';
import { createLogger } from '../../../daemon/log/log.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');

function record(id: string): JournalRecord {
  return { id, fingerprint: `fp-${id}`, at: NOW, response: { status: 200, headers: {}, body: '' } };
}
const line = (id: string) => `${JSON.stringify(record(id))}\n`;

describe('the idempotency journal on disk', () => {
  let dir: string;
  let path: string;
  let logged: Array<Record<string, unknown>>;
  const open = () =>
    IdempotencyJournal.open(dir, {
      now: () => NOW,
      log: createLogger({ level: 'debug', write: (text) => void logged.push(JSON.parse(text)) }),
    });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-journal-'));
    path = join(dir, JOURNAL_FILE);
    logged = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('starts the next record on a fresh line after a torn last line, so both survive a restart', async () => {
    const torn = line('b').slice(0, 30);
    await writeFile(path, line('a') + torn, { mode: 0o600 });
    const journal = await open();
    expect(await journal.append(record('c'))).toBe(true);
    await journal.close();
    expect(await readFile(path, 'utf8')).toBe(`${line('a')}${torn}\n${line('c')}`);
    const reopened = await open();
    expect([reopened.get('a')?.id, reopened.get('b'), reopened.get('c')?.id]).toEqual(['a', undefined, 'c']);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', lines: 1 }));
    await reopened.close();
  });

  it('leaves an existing empty journal as it is, and writes its first record on the first line', async () => {
    await writeFile(path, '', { mode: 0o600 });
    const before = await stat(path);
    const journal = await open();
    expect((await stat(path)).ino).toBe(before.ino);
    expect(await journal.append(record('a'))).toBe(true);
    await journal.close();
    expect(await readFile(path, 'utf8')).toBe(line('a'));
  });

  it('creates the journal when there is none', async () => {
    const journal = await open();
    expect(await readdir(dir)).toEqual([JOURNAL_FILE]);
    expect(await readFile(path, 'utf8')).toBe('');
    await journal.close();
  });

  it('recovers a record an older daemon appended onto a torn line', async () => {
    await writeFile(path, line('a') + line('b').slice(0, 25) + line('c'), { mode: 0o600 });
    const journal = await open();
    expect(journal.get('c')?.id).toBe('c');
    expect(await readdir(dir)).toEqual([JOURNAL_FILE]);
    await journal.close();
  });

  it('keeps a journal of random bytes aside under a new name and starts afresh, saying where', async () => {
    const garbage = randomBytes(4096);
    await writeFile(path, garbage, { mode: 0o600 });
    const journal = await open();
    await journal.close();
    const aside = (await readdir(dir)).filter((name) => name.startsWith(`${JOURNAL_FILE}.corrupt-`));
    expect(aside).toHaveLength(1);
    expect((await readFile(join(dir, aside[0] as string))).equals(garbage)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('');
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'error', kept_aside_as: join(dir, aside[0] as string) }),
    );
  });

  it('keeps the good records of a journal with garbage lines, and the whole file aside', async () => {
    const original = `${line('a')}not a record\n${line('b')}{"id":"x"}\n`;
    await writeFile(path, original, { mode: 0o600 });
    const journal = await open();
    expect([journal.get('a')?.id, journal.get('b')?.id]).toEqual(['a', 'b']);
    await journal.close();
    const aside = (await readdir(dir)).find((name) => name.includes('.corrupt-')) as string;
    expect(await readFile(join(dir, aside), 'utf8')).toBe(original);
    expect(await readFile(path, 'utf8')).toBe(line('a') + line('b'));
    expect(logged).toContainEqual(expect.objectContaining({ level: 'error', bad_lines: 2, records: 2 }));
  });

  it('never overwrites an earlier copy kept aside', async () => {
    for (const text of ['first garbage\n', 'second garbage\n']) {
      await writeFile(path, text, { mode: 0o600 });
      await (await open()).close();
    }
    const aside = (await readdir(dir)).filter((name) => name.includes('.corrupt-')).sort();
    expect(aside).toHaveLength(2);
    const texts = await Promise.all(aside.map((name) => readFile(join(dir, name), 'utf8')));
    expect(texts.sort()).toEqual(['first garbage\n', 'second garbage\n']);
  });
});
