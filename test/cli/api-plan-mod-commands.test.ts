import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { encodeKey } from '../../protocol/keys.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';

async function initialised(): Promise<string> {
  const dir = await dataDirPath();
  await runOk(['init', '--data-dir', dir]);
  return dir;
}

async function state(dir: string): Promise<unknown> {
  return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'));
}

describe('modgate api', () => {
  it('ships disabled', async () => {
    const dir = await initialised();
    expect(await runOk(['api', 'status', '--data-dir', dir])).toContain(
      'API: disabled (every /v1 request answers 404 not_found)',
    );
    expect(JSON.parse(await runOk(['api', 'status', '--data-dir', dir, '--json']))).toEqual({
      api_enabled: false,
      premium_active: false,
    });
  });

  it('enables and disables the API, saying when nothing changed', async () => {
    const dir = await initialised();
    expect(await runOk(['api', 'enable', '--data-dir', dir])).toMatch(
      /^API enabled\.\nNote: there is no active premium plan/,
    );
    expect(await state(dir)).toMatchObject({ api_enabled: true });
    expect(await runOk(['api', 'enable', '--data-dir', dir])).toMatch(
      /^API already enabled; nothing changed\./,
    );
    expect(await runOk(['api', 'disable', '--data-dir', dir])).toBe('API disabled.\n');
    expect(await state(dir)).toMatchObject({ api_enabled: false });
  });

  it('works with MODGATE_DATA_DIR in place of --data-dir', async () => {
    const dir = await initialised();
    await runOk(['api', 'enable'], { env: { MODGATE_DATA_DIR: dir } });
    expect(await state(dir)).toMatchObject({ api_enabled: true });
  });
});

describe('modgate plan', () => {
  it('sets premium with an end date and features, and shows it', async () => {
    const dir = await initialised();
    const now = new Date('2030-01-01T00:00:00Z');
    const stdout = await runOk(
      ['plan', 'set', '--data-dir', dir, '--premium', 'on', '--until', '2030-02-01', '--features', 'shop'],
      { now },
    );
    expect(stdout).toBe('Plan set: premium on until 2030-02-01T00:00:00Z, features: shop (active).\n');
    expect(await state(dir)).toEqual({
      api_enabled: false,
      plan: { premium: true, until: '2030-02-01T00:00:00.000Z', features: ['shop'] },
    });
    expect(JSON.parse(await runOk(['plan', 'status', '--data-dir', dir, '--json'], { now }))).toEqual({
      premium: true,
      until: '2030-02-01T00:00:00.000Z',
      features: ['shop'],
      active: true,
    });
    expect(
      await runOk(['plan', 'status', '--data-dir', dir], { now: new Date('2030-03-01T00:00:00Z') }),
    ).toContain('(expired)');
  });

  it('replaces the whole plan: omitted flags mean no end date and no features', async () => {
    const dir = await initialised();
    await runOk([
      'plan',
      'set',
      '--data-dir',
      dir,
      '--premium',
      'on',
      '--until',
      '2030-02-01T12:30:00+02:00',
      '--features',
      'shop',
    ]);
    await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'off']);
    expect(await state(dir)).toMatchObject({ plan: { premium: false, until: null, features: [] } });
  });

  it.each([
    [['--premium', 'yes'], "option '--premium <on|off>' argument 'yes' is invalid. expected on or off"],
    [['--premium', 'on', '--until', '2030-02-30'], 'expected an ISO 8601 date'],
    [['--premium', 'on', '--until', 'tomorrow'], 'expected an ISO 8601 date'],
    [['--premium', 'on', '--until', '2030-01-01T00:00:00'], 'expected an ISO 8601 date'],
    [['--premium', 'on', '--features', 'shop,gold'], 'unknown feature "gold"; valid features: none, shop'],
    [[], "required option '--premium <on|off>' not specified"],
  ])('rejects %j with exit code 2', async (flags, message) => {
    const dir = await initialised();
    const result = await run(['plan', 'set', '--data-dir', dir, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('modgate mod credentials', () => {
  it('prints the mod credentials as JSON whose key the daemon trusts', async () => {
    const dir = await initialised();
    const stdout = await runOk(['mod', 'credentials', '--data-dir', dir]);
    const credentials = JSON.parse(stdout) as Record<string, string>;
    expect(stdout).toBe(await readFile(join(dir, 'mod-credentials.json'), 'utf8'));
    const snapshot = await (await DataDir.open(dir)).snapshot();
    expect(credentials).toMatchObject({
      url: 'ws://127.0.0.1:8788',
      daemon_public_key: encodeKey(snapshot.identity.daemonPublicKey),
    });
    expect(snapshot.trustedModKeys.map((key) => encodeKey(key))).toContain(credentials.mod_public_key);
  });
});
