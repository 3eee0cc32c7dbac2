/**
 * `modgate mod test`'s exit codes without a mod (docs/mod-testing.md, "Exit codes"): 2 when no
 * mod dials within `--wait`, when the data dir cannot be read or the address is taken, and on a
 * bad flag; the harness itself is proven against real mods in test/e2e/mod-test.test.ts.
 */
import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { run, runOk } from '../../harness/cli.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';

async function initialised(): Promise<string> {
  const dir = await dataDirPath();
  await runOk(['init', '--data-dir', dir]);
  return dir;
}

/** `modgate mod test` on a fresh data dir, with `flags`. */
async function modTest(...flags: string[]) {
  return run(['mod', 'test', '--data-dir', await initialised(), ...flags]);
}

describe('modgate mod test', () => {
  it('exits 2 naming the address when no mod dials within --wait', async () => {
    const result = await modTest('--listen', '127.0.0.1:0', '--wait', '200ms');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: no mod dialled ws:\/\/127\.0\.0\.1:\d+\/ within 200 ms: /);
  });

  it('answers --json with a JSON error object when no mod dials', async () => {
    const result = await modTest('--listen', '127.0.0.1:0', '--wait', '100ms', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'no_mod' } });
  });

  it('exits 2 when the mod-link address is taken', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    try {
      const result = await modTest('--listen', `127.0.0.1:${port}`, '--wait', '100ms');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`ws://127.0.0.1:${port}/ is in use`);
    } finally {
      holder.close();
    }
  });

  it('exits 2 for a data dir that was never initialised', async () => {
    const result = await run(['mod', 'test', '--data-dir', await dataDirPath(), '--wait', '100ms']);
    expect(result.code).toBe(2);
  });

  it.each([
    ['--wait', '60'],
    ['--wait', '2h'],
    ['--only', 'op.players.get;rm'],
    ['--op-deadline', '0s'],
  ])('exits 2 for %s %s', async (flag, value) => {
    const result = await modTest(flag, value);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`option '${flag} <`);
  });
});
