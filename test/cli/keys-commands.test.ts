import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyApiKey } from '../../daemon/store/api-keys.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../harness/data-dir.ts';

describe('modgate keys list', () => {
  it('never prints key text or hashes', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(dir);
    const [{ hash }] = (
      JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8')) as { keys: [{ hash: string }] }
    ).keys;
    const secret = created.key.slice(-40);
    for (const args of [[], ['--json']]) {
      const stdout = await runOk(['keys', 'list', '--data-dir', dir, ...args]);
      expect(stdout).toContain(created.id);
      expect(stdout).not.toContain(secret);
      expect(stdout).not.toContain(hash);
      expect(stdout).not.toMatch(/hash/i);
    }
  });

  it('shows each key with its status', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const active = await createKey(dir);
    const revoked = await createKey(dir);
    await runOk(['keys', 'revoke', '--data-dir', dir, revoked.id]);
    const stdout = await runOk(['keys', 'list', '--data-dir', dir]);
    expect(stdout.split('\n')[0]).toMatch(
      /^ID +NAME +STATUS +CREATED +EXPIRES +LAST USED +LAST IP +ALLOW IPS +SCOPES$/,
    );
    expect(stdout).toMatch(new RegExp(`^${active.id} +bot +active `, 'm'));
    expect(stdout).toMatch(new RegExp(`^${revoked.id} +bot +revoked `, 'm'));
  });

  it('says how to create a key when there is none', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    expect(await runOk(['keys', 'list', '--data-dir', dir])).toContain('No API keys yet');
  });
});

describe('modgate keys revoke', () => {
  it('revokes a key so that it no longer verifies, and says so again on a second run', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(dir);
    expect(await runOk(['keys', 'revoke', '--data-dir', dir, created.id])).toBe(
      `Revoked key ${created.id} (bot).\n`,
    );
    const snapshot = await (await DataDir.open(dir)).snapshot();
    expect(verifyApiKey(snapshot.keysById, created.key, new Date())).toEqual({
      ok: false,
      reason: 'revoked',
    });
    expect(await runOk(['keys', 'revoke', '--data-dir', dir, created.id])).toMatch(
      /already revoked at .*; nothing changed\./,
    );
  });

  it('accepts the full key text in place of the id', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(dir);
    expect(await runOk(['keys', 'revoke', '--data-dir', dir, created.key])).toContain(
      `Revoked key ${created.id}`,
    );
  });

  it('exits 1 for an unknown id and 2 for text that is not an id', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const unknown = await run(['keys', 'revoke', '--data-dir', dir, 'abcdefabcdef']);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: `error: no key with id abcdefabcdef in ${dir} (see \`modgate keys list\`)\n`,
    });
    expect((await run(['keys', 'revoke', '--data-dir', dir, 'nope'])).code).toBe(2);
  });
});

describe('keys commands on a broken data dir', () => {
  it('names the corrupt file in one line, without a stack trace', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    await writeFile(join(dir, 'keys.json'), '{"keys": [}');
    const result = await run(['keys', 'list', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: ${join(dir, 'keys.json')} is not valid JSON \\(.*\\); fix it by hand or restore it from a backup\\n$`,
      ),
    );
  });

  it('refuses looser permissions with the chmod that fixes them, with exit code 2', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    await chmod(join(dir, 'keys.json'), 0o644);
    const result = await run(['keys', 'create', '--data-dir', dir, '--name', 'bot', '--scopes', 'all']);
    expect(result).toMatchObject({
      code: 2,
      stderr: `error: ${join(dir, 'keys.json')} is accessible to other users; fix it with: chmod 600 ${join(dir, 'keys.json')}\n`,
    });
  });

  it('says to run modgate init for a data dir that was never initialised', async () => {
    const dir = await dataDirPath();
    const result = await run(['keys', 'list', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`run \`modgate init --data-dir ${dir}\` first`);
  });
});

describe('modgate keys roll', () => {
  it('prints a new key once and keeps the old one working until --expire-old-in passes', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const old = await createKey(dir);
    const now = new Date();
    const rolled = JSON.parse(
      await runOk(['keys', 'roll', '--data-dir', dir, old.id, '--expire-old-in', '2h', '--json'], { now }),
    ) as { id: string; key: string; rolled_from: string; old_expires_at: string };
    expect(rolled).toMatchObject({ rolled_from: old.id, name: 'bot' });
    expect(rolled.old_expires_at).toBe(new Date(now.getTime() + 7_200_000).toISOString());
    const { keysById } = await (await DataDir.open(dir)).snapshot();
    expect(verifyApiKey(keysById, rolled.key, now).ok).toBe(true);
    expect(verifyApiKey(keysById, old.key, now).ok).toBe(true);
    expect(verifyApiKey(keysById, old.key, new Date(now.getTime() + 7_200_000))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses to roll a key a second time, with exit code 1 and the key to roll instead', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const old = await createKey(dir);
    const text = await runOk(['keys', 'roll', '--data-dir', dir, old.id]);
    const newId = /to ([a-z0-9]{12})/.exec(text)?.[1];
    expect(text).toMatch(/^Rolled key [a-z0-9]{12} \(bot\) to [a-z0-9]{12}\n/);
    expect(text).toMatch(new RegExp(`^  old key: +${old.id} works until \\S+Z$`, 'm'));
    const again = await run(['keys', 'roll', '--data-dir', dir, old.id]);
    expect(again).toMatchObject({
      code: 1,
      stderr: `error: key ${old.id} was already rolled to ${newId}; roll that key\n`,
    });
  });

  it('rejects an overlap longer than 30 days as a usage error', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const old = await createKey(dir);
    const result = await run(['keys', 'roll', '--data-dir', dir, old.id, '--expire-old-in', '31d']);
    expect(result).toMatchObject({ code: 2, stderr: 'error: the overlap is at most 30d\n' });
  });
});

describe('modgate keys list, last use', () => {
  it('shows when and from where each key was last used, from key-usage.json', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const used = await createKey(dir);
    const unused = await createKey(dir);
    const usage = {
      keys: { [used.id]: { last_used_at: '2030-01-01T00:00:00.000Z', last_used_ip: '203.0.113.7' } },
    };
    await writeFile(join(dir, 'key-usage.json'), JSON.stringify(usage), { mode: 0o600 });
    const stdout = await runOk(['keys', 'list', '--data-dir', dir]);
    expect(stdout).toMatch(
      new RegExp(`^${used.id} +bot +active +\\S+ +never +2030-01-01T00:00:00Z +203\\.0\\.113\\.7 `, 'm'),
    );
    expect(stdout).toMatch(new RegExp(`^${unused.id} +bot +active +\\S+ +never +never +- `, 'm'));
    const json = JSON.parse(await runOk(['keys', 'list', '--data-dir', dir, '--json'])) as {
      keys: { id: string; last_used_at: string | null; last_used_ip: string | null }[];
    };
    expect(json.keys).toEqual([
      expect.objectContaining({
        id: used.id,
        last_used_at: '2030-01-01T00:00:00.000Z',
        last_used_ip: '203.0.113.7',
      }),
      expect.objectContaining({ id: unused.id, last_used_at: null, last_used_ip: null }),
    ]);
  });
});

describe('modgate keys list with a broken key-usage.json', () => {
  it('lists the keys anyway and warns that last use is not shown', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(dir);
    await writeFile(join(dir, 'key-usage.json'), '{"keys": ', { mode: 0o600 });
    const result = await run(['keys', 'list', '--data-dir', dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${created.id} +bot +active +\\S+ +never +never +- `, 'm'));
    expect(result.stderr).toMatch(
      /^warning: .*key-usage\.json is not valid JSON.*; last use is not shown\n$/,
    );
  });
});
