/** Real temporary folders for the store and CLI tests, removed after each test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh empty folder (mode 0700, from mkdtemp). */
export async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'modgate-test-'));
  created.push(dir);
  return dir;
}

/** A path for a data dir that does not exist yet, inside a fresh temp folder. */
export async function dataDirPath(): Promise<string> {
  return join(await makeTempDir(), 'data');
}
