import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashAdminToken } from '../../daemon/store/admin-tokens.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';

async function initialised(): Promise<string> {
  const dir = await dataDirPath();
  await runOk(['init', '--data-dir', dir]);
  return dir;
}

describe('modgate admin tokens', () => {
  it('creates a token, prints it once, and stores only its SHA-256 in a 0600 file', async () => {
    const dir = await initialised();
    const created = JSON.parse(
      await runOk(['admin', 'tokens', 'create', '--data-dir', dir, '--name', 'panel', '--json']),
    ) as { id: string; name: string; token: string; created_at: string; role: string };
    expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'invite', 'name', 'role', 'token']);
    expect(created.role).toBe('owner');
    const file = await readFile(join(dir, 'admin-tokens.json'), 'utf8');
    expect(file).not.toContain(created.token);
    expect(file).toContain(hashAdminToken(created.token));
    const list = await runOk(['admin', 'tokens', 'list', '--data-dir', dir]);
    expect(list.split('\n')[0]).toMatch(/^ID +NAME +ROLE +STATUS +CREATED +LAST USED$/);
    expect(list).toMatch(new RegExp(`^${created.id} +panel +owner +active .* never$`, 'm'));
    expect(list).not.toContain(created.token);
  });

  it('creates a token with a role, lists the role, and refuses a role that does not exist', async () => {
    const dir = await initialised();
    const create = (name: string, role: string) =>
      run(['admin', 'tokens', 'create', '--data-dir', dir, '--name', name, '--role', role, '--json']);
    const created = JSON.parse((await create('mia', 'moderator')).stdout) as { id: string };
    expect(created).toMatchObject({ role: 'moderator', invite: null });
    const file = JSON.parse(await readFile(join(dir, 'admin-tokens.json'), 'utf8')) as {
      tokens: { id: string; role: string }[];
    };
    expect(file.tokens).toEqual([expect.objectContaining({ id: created.id, role: 'moderator' })]);
    expect(await runOk(['admin', 'tokens', 'list', '--data-dir', dir])).toMatch(
      new RegExp(`^${created.id} +mia +moderator +active`, 'm'),
    );
    const wrong = await create('x', 'boss');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('owner, moderator, viewer');
  });

  it('revokes a token and lists it as revoked', async () => {
    const dir = await initialised();
    const { id } = JSON.parse(
      await runOk(['admin', 'tokens', 'create', '--data-dir', dir, '--name', 'ci', '--json']),
    ) as { id: string };
    expect(await runOk(['admin', 'tokens', 'revoke', '--data-dir', dir, id])).toContain('revoked');
    const [listed] = JSON.parse(await runOk(['admin', 'tokens', 'list', '--data-dir', dir, '--json'])) as [
      { status: string; revoked_at: string | null },
    ];
    expect(listed.status).toBe('revoked');
    expect(listed.revoked_at).not.toBeNull();
  });

  it('refuses an unknown id (exit 1) and a malformed one or a bad name (exit 2)', async () => {
    const dir = await initialised();
    const unknown = await run(['admin', 'tokens', 'revoke', '--data-dir', dir, 'zzzzzzzzzzzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no admin token with id zzzzzzzzzzzz');
    expect((await run(['admin', 'tokens', 'revoke', '--data-dir', dir, '../x'])).code).toBe(2);
    expect((await run(['admin', 'tokens', 'create', '--data-dir', dir, '--name', ' '])).code).toBe(2);
    expect(
      (await run(['admin', 'tokens', 'create', '--data-dir', dir, '--name', 'x'.repeat(101)])).code,
    ).toBe(2);
  });

  it('says how to create one when there is none', async () => {
    const dir = await initialised();
    expect(await runOk(['admin', 'tokens', 'list', '--data-dir', dir])).toContain(
      'modgate admin tokens create',
    );
  });
});
