import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../daemon/scopes.ts';
import { verifyApiKey } from '../../daemon/store/api-keys.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';
import { createKey, premiumDataDir, type CreatedKey } from '../../harness/data-dir.ts';

/** `modgate keys create` on `dir` with a name, scopes and further flags. */
const create = (dir: string, name: string, scopes: string, ...flags: string[]) =>
  run(['keys', 'create', '--data-dir', dir, '--name', name, '--scopes', scopes, ...flags]);

describe('modgate keys create', () => {
  it('refuses without an active premium plan, with exit code 3', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    const result = await create(dir, 'bot', 'server:read');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^error: premium_required: this server has no active premium plan.*--premium on`\n$/,
    );
    expect(JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8'))).toEqual({ keys: [] });
  });

  it('refuses once the premium plan has passed its end date', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'on', '--until', '2030-01-01']);
    const args = ['keys', 'create', '--data-dir', dir, '--name', 'bot', '--scopes', 'server:read'];
    expect((await run(args, { now: new Date('2029-12-31T23:59:59Z') })).code).toBe(0);
    expect((await run(args, { now: new Date('2030-01-01T00:00:00Z') })).code).toBe(3);
  });

  it('prints exactly one JSON object with --json, whose key verifies against the stored hash', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const stdout = await runOk([
      'keys',
      'create',
      '--data-dir',
      dir,
      '--name',
      'ci',
      '--scopes',
      'server:read,players:read',
      '--json',
    ]);
    const created = JSON.parse(stdout) as CreatedKey;
    expect(created).toMatchObject({
      name: 'ci',
      scopes: ['server:read', 'players:read'],
      expires_at: null,
      allow_ips: [],
    });
    expect(created.key).toMatch(new RegExp(`^mg_live_${created.id}_[A-Za-z0-9]{40}$`));
    const snapshot = await (await DataDir.open(dir)).snapshot();
    expect(verifyApiKey(snapshot.keysById, created.key, new Date())).toMatchObject({ ok: true });
    expect(await readFile(join(dir, 'keys.json'), 'utf8')).not.toContain(created.key);
  });

  it('prints the key once with a warning that it will not be shown again', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const stdout = await runOk([
      'keys',
      'create',
      '--data-dir',
      dir,
      '--name',
      'bot',
      '--scopes',
      'server:read',
    ]);
    expect(stdout).toMatch(/^ {2}mg_live_[a-z0-9]{12}_[A-Za-z0-9]{40}$/m);
    expect(stdout).toContain('it will not be shown again');
    expect(stdout).toContain(`modgate api enable --data-dir ${dir}`);
  });

  it('takes all for every scope and keeps the spec order', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    expect((await createKey(dir, '--scopes', 'all')).scopes).toEqual([...SCOPES]);
    expect((await createKey(dir, '--scopes', 'players:read, server:read,players:read')).scopes).toEqual([
      'server:read',
      'players:read',
    ]);
  });

  it('rejects an unknown scope, listing the valid ones, with exit code 2', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const result = await create(dir, 'bot', 'server:read,server:write');
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      'unknown scope "server:write"; valid scopes: all, server:read, players:read,',
    );
    expect(result.stderr).toContain('commands:read');
  });

  it('refuses more than 64 allowlist entries with exit code 2, as the admin API does', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const entries = Array.from({ length: 65 }, (_, i) => `10.${i}.0.0/16`).join(',');
    const args = ['keys', 'create', '--data-dir', dir, '--name', 'b', '--scopes', 'all'];
    const result = await run([...args, '--allow-ip', entries]);
    expect(result).toMatchObject({ code: 2, stderr: 'error: at most 64 allowlist entries per key\n' });
  });

  it('stores allowlist entries in canonical form and rejects a bad CIDR with exit code 2', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(
      dir,
      '--allow-ip',
      '203.0.113.7',
      '--allow-ip',
      '10.1.2.3/8,2001:db8::/32',
    );
    expect(created.allow_ips).toEqual(['203.0.113.7/32', '10.0.0.0/8', '2001:db8::/32']);
    for (const bad of ['10.0.0.0/33', '300.1.1.1', 'example.com', '10.0.0']) {
      const result = await create(dir, 'b', 'all', '--allow-ip', bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`"${bad}" is not an IP address or CIDR range`);
    }
  });

  it('sets the expiry from --expires-in and rejects a bad duration', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const now = new Date('2030-01-01T00:00:00Z');
    const stdout = await runOk(
      [
        'keys',
        'create',
        '--data-dir',
        dir,
        '--name',
        'b',
        '--scopes',
        'all',
        '--expires-in',
        '30d',
        '--json',
      ],
      { now },
    );
    expect((JSON.parse(stdout) as CreatedKey).expires_at).toBe('2030-01-31T00:00:00.000Z');
    for (const bad of ['30', '0d', '1y', '-1d', '4000d']) {
      const result = await create(dir, 'b', 'all', '--expires-in', bad);
      expect(result.code).toBe(2);
    }
  });

  it('validates owner ids: 17 digits for the platform id, 17 to 20 for the social id', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await createKey(
      dir,
      '--owner-platform-id',
      '76561198000000001',
      '--owner-social-id',
      '123456789012345678',
    );
    const listed = JSON.parse(await runOk(['keys', 'list', '--data-dir', dir, '--json'])) as {
      keys: Record<string, unknown>[];
    };
    expect(listed.keys.find((key) => key.id === created.id)).toMatchObject({
      owner_platform_id: '76561198000000001',
      owner_social_id: '123456789012345678',
    });
    expect((await create(dir, 'b', 'all', '--owner-platform-id', '123')).code).toBe(2);
    expect((await create(dir, 'b', 'all', '--owner-social-id', '1'.repeat(21))).code).toBe(2);
  });

  it('loses no key when several keys create run at once', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const created = await Promise.all(Array.from({ length: 8 }, () => createKey(dir)));
    const snapshot = await (await DataDir.open(dir)).snapshot();
    expect(snapshot.keysById.size).toBe(8);
    for (const key of created) expect(verifyApiKey(snapshot.keysById, key.key, new Date()).ok).toBe(true);
  });
});
