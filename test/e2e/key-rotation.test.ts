/**
 * docs/operations.md "Rotating an API key", against a running `modgate serve` process: roll a key
 * (the old one works until the overlap ends), and create, overlap and revoke by hand. The CLI steps run in-process; the
 * daemon is its own process, and each step reaches it through its admin socket, as a separate
 * `modgate keys …` process's would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { runOk } from '../../harness/cli.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

describe('rotating an API key on a running daemon', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let apiPort: number;
  const status = async (key: string) =>
    (await fetch(`http://127.0.0.1:${apiPort}/v1/server`, { headers: { authorization: `Bearer ${key}` } }))
      .status;
  const create = (name: string) => data.createKey('--name', name, '--scopes', 'all');

  beforeAll(async () => {
    data = await makeDataDir();
    ({ serve, apiPort } = await startServe(data.dir));
  }, 60_000);

  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });

  // Without a mod connected, an accepted key gets 503 server_unavailable; a refused one gets 401.
  it('accepts the old and the new key together, then refuses only the revoked one', async () => {
    const old = await create('bot');
    await eventually(async () => (await status(old.key)) !== 401);

    const fresh = await create('bot-rotated');
    await eventually(async () => (await status(fresh.key)) !== 401);
    expect(await status(old.key)).toBe(503);
    expect(await status(fresh.key)).toBe(503);

    await runOk(['keys', 'revoke', '--data-dir', data.dir, old.id]);
    // The CLI goes through the daemon's admin socket: the change acts before it returns.
    await eventually(async () => (await status(old.key)) === 401);
    expect(await status(fresh.key)).toBe(503);
    const listed = JSON.parse(await runOk(['keys', 'list', '--data-dir', data.dir, '--json'])) as {
      keys: { id: string; revoked_at: string | null }[];
    };
    expect(listed.keys.find((key) => key.id === old.id)?.revoked_at).not.toBeNull();
  });

  it('rolls a key: the new one works at once, the old one until the overlap ends, then is refused', async () => {
    const old = await create('bot-to-roll');
    await eventually(async () => (await status(old.key)) !== 401);
    const rolled = JSON.parse(
      await runOk(['keys', 'roll', '--data-dir', data.dir, old.id, '--expire-old-in', '1h', '--json']),
    ) as { id: string; key: string; rolled_from: string; old_expires_at: string };
    expect(rolled.rolled_from).toBe(old.id);
    expect(Date.parse(rolled.old_expires_at) - Date.now()).toBeGreaterThan(3_000_000);
    // The daemon's clock is its own: the overlap is shortened to end seconds from now instead.
    const soon = new Date(Date.now() + 3_000).toISOString();
    const body = { expires_at: soon };
    const patched = await adminRequest({
      dataDir: data.dir,
      method: 'PATCH',
      path: `/admin/v1/keys/${old.id}`,
      body,
    });
    expect(patched.status).toBe(200);
    expect(await status(old.key)).not.toBe(401);
    await eventually(async () => (await status(rolled.key)) !== 401);
    await eventually(async () => (await status(old.key)) === 401);
    expect(await status(rolled.key)).toBe(503);
  });
});
