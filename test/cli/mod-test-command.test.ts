/**
 * `modgate mod test`'s exit codes without a mod (docs/mod-testing.md, "Exit codes"): 2 when no
 * mod dials within `--wait`, when the data dir cannot be read or the address is taken, when
 * `--only` selects no case, and on a bad flag; `--list` answers without a mod; the harness itself is proven against real mods in test/e2e/mod-test.test.ts.
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

  it('exits 2 at once when --only matches no case, saying how to see the case ids', async () => {
    const started = Date.now();
    const result = await modTest('--listen', '127.0.0.1:0', '--only', 'no.such.case', '--wait', '60s');
    expect(result.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(20_000); // not the 60 s wait for a mod
    expect(result.stderr).toContain("--only 'no.such.case' matches no case, so there is nothing to run");
    expect(result.stderr).toContain('`modgate mod test --list` lists the case ids');
  });

  it('lists the cases selected, with what each needs, without waiting for a mod', async () => {
    const result = await run(['mod', 'test', '--list', '--only', 'game.coins-*', '--json']);
    expect(result.code).toBe(0);
    const needs = ['op.players.list', 'op.players.get', 'op.economy.coins'];
    expect(JSON.parse(result.stdout)).toEqual({
      cases: [
        { id: 'game.coins-idempotent', op: 'economy.coins', section: '§6.4', needs },
        { id: 'game.coins-overdraw', op: 'economy.coins', section: '§6.3', needs },
        { id: 'game.coins-idempotent-redial', op: 'economy.coins', section: '§6.4', needs },
      ],
    });
    const table = await run(['mod', 'test', '--list', '--only', 'op.players.get']);
    expect(table.stdout).toMatch(/^§6\.1 +op\.players\.get +needs op\.players\.list$/m);
    expect((await run(['mod', 'test', '--list', '--only', 'nothing'])).code).toBe(2);
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
