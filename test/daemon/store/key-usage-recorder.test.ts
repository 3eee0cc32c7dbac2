import { access, chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDir } from '../../../daemon/store/data-dir.ts';
import { KeyUsageRecorder } from '../../../daemon/store/key-usage-recorder.ts';
import { keyUsageFile } from '../../../daemon/store/key-usage.ts';
import { eventually } from '../../../harness/stack.ts';
import { premiumDataDir } from '../../../harness/data-dir.ts';
import { dataDirPath } from './temp-dir.ts';

const AT = Date.parse('2030-01-01T00:00:00Z');

async function openData(): Promise<DataDir> {
  return DataDir.open(await premiumDataDir(await dataDirPath()));
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('KeyUsageRecorder', () => {
  it('keeps uses in memory and writes no file until the flush delay has passed', async () => {
    const dataDir = await openData();
    const recorder = await KeyUsageRecorder.open(dataDir, { flushDelayMs: 60_000 });
    for (let i = 0; i < 100; i++) recorder.record('abcdefabcdef', '203.0.113.7', AT + i);
    expect(recorder.usage().get('abcdefabcdef')).toEqual({ at: new Date(AT + 99), ip: '203.0.113.7' });
    expect(await exists(join(dataDir.path, 'key-usage.json'))).toBe(false);
    await recorder.close();
  });

  it('writes the last use of each key once the delay passes, in a file of mode 0600', async () => {
    const dataDir = await openData();
    const recorder = await KeyUsageRecorder.open(dataDir, { flushDelayMs: 10 });
    recorder.record('abcdefabcdef', '203.0.113.7', AT);
    recorder.record('abcdefabcdef', '2001:db8::1', AT + 1);
    recorder.record('bbbbbbbbbbbb', '10.0.0.1', AT);
    await eventually(async () => (await dataDir.read(keyUsageFile)).size === 2);
    expect(await dataDir.read(keyUsageFile)).toEqual(
      new Map([
        ['abcdefabcdef', { at: new Date(AT + 1), ip: '2001:db8::1' }],
        ['bbbbbbbbbbbb', { at: new Date(AT), ip: '10.0.0.1' }],
      ]),
    );
    // The data dir's trust check holds the new file to 0600 like the rest (it would refuse otherwise).
    await DataDir.open(dataDir.path);
    await recorder.close();
  });

  it('writes what is left at close and reads it back when opened again', async () => {
    const dataDir = await openData();
    const recorder = await KeyUsageRecorder.open(dataDir, { flushDelayMs: 60_000 });
    recorder.record('abcdefabcdef', '203.0.113.7', AT);
    await recorder.close();
    const again = await KeyUsageRecorder.open(dataDir);
    expect(again.usage().get('abcdefabcdef')).toEqual({ at: new Date(AT), ip: '203.0.113.7' });
    await again.close();
  });

  it('never lets an older use replace a newer one already in the file', async () => {
    const dataDir = await openData();
    const first = await KeyUsageRecorder.open(dataDir);
    first.record('abcdefabcdef', '203.0.113.7', AT + 10);
    await first.close();
    const second = await KeyUsageRecorder.open(dataDir);
    second.record('abcdefabcdef', '10.0.0.1', AT);
    await second.close();
    expect((await dataDir.read(keyUsageFile)).get('abcdefabcdef')).toEqual({
      at: new Date(AT + 10),
      ip: '203.0.113.7',
    });
  });
});

describe('key-usage.json in the data dir', () => {
  it('is held to mode 0600 by the trust check, like the other private files', async () => {
    const dataDir = await openData();
    const recorder = await KeyUsageRecorder.open(dataDir);
    recorder.record('abcdefabcdef', '203.0.113.7', AT);
    await recorder.close();
    await chmod(join(dataDir.path, 'key-usage.json'), 0o644);
    await expect(DataDir.open(dataDir.path)).rejects.toMatchObject({ code: 'insecure_permissions' });
  });
});

describe('a broken key-usage.json', () => {
  it('is reported, and replaced by the next flush with what the daemon knows', async () => {
    const dataDir = await openData();
    await writeFile(join(dataDir.path, 'key-usage.json'), '{"keys": ', { mode: 0o600 });
    const errors: unknown[] = [];
    const recorder = await KeyUsageRecorder.open(dataDir, { onError: (error) => errors.push(error) });
    expect(errors).toHaveLength(1);
    recorder.record('abcdefabcdef', '203.0.113.7', AT);
    await recorder.close();
    expect(await dataDir.read(keyUsageFile)).toEqual(
      new Map([['abcdefabcdef', { at: new Date(AT), ip: '203.0.113.7' }]]),
    );
  });
});
