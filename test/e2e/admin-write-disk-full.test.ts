/**
 * Issue 38, item 4: an admin write on a running daemon whose data dir's disk is really full (a
 * small tmpfs, root only; harness/tmpfs.ts) is answered as docs/admin.md promises: 409 `conflict`
 * naming the file, nothing changed, and the same command works once space is freed. Where mounting is impossible this
 * file says so on stderr and is skipped; .ci/run sets MODGATE_REQUIRE_TMPFS=1, and then it fails.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../harness/cli.ts';
import { premiumDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { fillDisk, mountTmpfs } from '../../harness/tmpfs.ts';

const disk = mountTmpfs('2m', 'test/e2e/admin-write-disk-full.test.ts');
let serve: ModgateProcess | undefined;

afterAll(async () => {
  if (serve) await stop(serve);
  disk.unmount();
});

describe.runIf(disk.run)('an admin write when the data dir disk is full', () => {
  it('answers 409 naming the file, changes nothing, and works once space is freed', async () => {
    if (disk.failure !== null) throw new Error(`MODGATE_REQUIRE_TMPFS=1 but a tmpfs: ${disk.failure}`);
    const dir = await premiumDataDir(join(disk.path, 'data'));
    ({ serve } = await startServe(dir));
    const keysBefore = await readFile(join(dir, 'keys.json'), 'utf8');
    const filler = await fillDisk(disk.path);

    const createKey = () =>
      run(['keys', 'create', '--name', 'shop', '--scopes', 'server:read', '--data-dir', dir, '--json']);
    const refused = await createKey();
    expect(refused.code, refused.stderr).toBe(1);
    const error = (
      JSON.parse(refused.stdout || refused.stderr) as { error: { code: string; message: string } }
    ).error;
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(`${join(dir, 'keys.json')} cannot be written (ENOSPC`);
    expect(await readFile(join(dir, 'keys.json'), 'utf8')).toBe(keysBefore);

    await rm(filler);
    const created = await createKey();
    expect(created.code).toBe(0);
    // The refusal's audit line: written (its page of audit.jsonl had room) or recorded as a gap.
    const audit = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).split('\n').filter(Boolean);
    const refusal = audit.filter((line) => /"status":409|"gap"/.test(line));
    expect(refusal).toHaveLength(1);
  }, 90_000);
});
