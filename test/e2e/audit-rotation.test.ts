/**
 * The audit log rotates without losing a line (docs/configuration.md "Rotating the audit log"):
 * writes hit a running `modgate serve` process while audit.jsonl is moved away and the daemon is
 * sent SIGHUP mid-load; every write's request id is then in exactly one of the two files. The
 * audit line is written after the response, so the check waits for the lines, not the responses.
 */
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../daemon/log/audit-log.ts';
import { auditedWrite, requestIdsOf, writeConcurrently } from '../support/audit-load.ts';
import { runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('rotating the audit log under load', () => {
  let dir: string;
  let serve: ModgateProcess;
  let apiPort: number;
  let key: string;

  const requestIds = async (file: string) => requestIdsOf(await readFile(file, 'utf8'));

  beforeAll(async () => {
    dir = await premiumDataDir(join(await mkdtemp(join(tmpdir(), 'modgate-audit-')), 'data'));
    await runOk(['api', 'enable', '--data-dir', dir]);
    key = (await createKey(dir, '--name', 'writer', '--scopes', 'all')).key;
    ({ serve, apiPort } = await startServe(dir));
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('keeps every line across a move and SIGHUP in the middle of concurrent writes', async () => {
    const live = join(dir, AUDIT_FILE);
    const rotated = `${live}.1`;
    // Eight writers in flight at any time, 400 writes; the rotation happens after the 150th.
    const ids = await writeConcurrently(auditedWrite(apiPort, key), 400, 8, {
      150: async () => {
        await rename(live, rotated);
        serve.kill('SIGHUP');
      },
    });
    // The daemon queues a write's audit line after answering it: the last lines may land a moment
    // after the last response (on a loaded machine, a few of 400). Wait until every write has a
    // line somewhere, then check that none is missing, repeated, or on the wrong side.
    const both = async () => [...(await requestIds(rotated)), ...(await requestIds(live).catch(() => []))];
    await eventually(async () => (await both()).length >= ids.length);
    const before = await requestIds(rotated);
    const after = await requestIds(live);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect([...before, ...after].sort()).toEqual([...ids].sort());
  }, 120_000);
});
