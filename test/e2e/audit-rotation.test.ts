/**
 * The audit log rotates without losing a line (docs/configuration.md "Rotating the audit log"):
 * writes hit a running `modgate serve` process while audit.jsonl is moved away and the daemon is
 * sent SIGHUP mid-load; every write's request id is then in exactly one of the two files.
 */
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_FILE } from '../../daemon/audit-log.ts';
import { createKey, premiumDataDir, runOk } from '../support/cli.ts';
import { startServe, stop, type Running } from '../support/processes.ts';
import { eventually } from '../support/stack.ts';

describe('rotating the audit log under load', () => {
  let dir: string;
  let serve: Running;
  let apiPort: number;
  let key: string;

  /** An authenticated write; without a mod it is 503, and audited like any other outcome. */
  const write = async () => {
    const response = await fetch(`http://127.0.0.1:${apiPort}/v1/commands`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ verb: 'Announce', args: ['rotation'] }),
    });
    await response.arrayBuffer();
    return response.headers.get('x-request-id')!;
  };
  const requestIds = async (file: string) =>
    (await readFile(file, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { request_id: string }).request_id);

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
    const sent: Promise<string>[] = [];
    // Eight writers in flight at any time, 400 writes; the rotation happens after the 150th.
    let next = 0;
    let rotation: Promise<void> | undefined;
    const writer = async () => {
      while (next < 400) {
        next += 1;
        if (next === 150) {
          rotation = (async () => {
            await rename(live, rotated);
            serve.kill('SIGHUP');
          })();
        }
        const id = write();
        sent.push(id);
        await id;
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    await rotation;
    const ids = await Promise.all(sent);
    // The daemon reopens the file on SIGHUP; wait until it exists again with the last writes in it.
    await eventually(async () => (await requestIds(live).catch(() => [])).length > 0, 10_000);
    const before = await requestIds(rotated);
    const after = await requestIds(live);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect([...before, ...after].sort()).toEqual([...ids].sort());
  }, 120_000);
});
