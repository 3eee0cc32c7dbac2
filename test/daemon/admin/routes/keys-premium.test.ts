/**
 * POST /admin/v1/keys on a daemon without premium (docs/admin.md, "API keys"): refused with 403
 * premium_required, and keys.json keeps the keys it had. The daemon runs in-process; its
 * admin.sock is the real socket, so the answer is the one the CLI and a provider's script get.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../../daemon/daemon.ts';
import { silentLogger } from '../../../../daemon/log/log.ts';
import { adminRequest } from '../../../../harness/admin.ts';
import { suiteDataDir } from '../../../support/suite.ts';

describe('API key creation without premium', () => {
  const data = suiteDataDir({ premium: false });
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon({
      dataDir: data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: 0 },
      log: silentLogger,
    });
  });
  afterAll(() => daemon.close());

  const keyCount = async () =>
    (JSON.parse(await readFile(join(data.dir, 'keys.json'), 'utf8')) as { keys: unknown[] }).keys.length;

  it('is refused with 403 premium_required and makes no key', async () => {
    const before = await keyCount();
    const answer = await adminRequest({
      dataDir: data.dir,
      method: 'POST',
      path: '/admin/v1/keys',
      body: { name: 'bot', scopes: ['server:read'] },
    });
    const code = (answer.json as { error: { code: string } }).error.code;
    expect([answer.status, code]).toEqual([403, 'premium_required']);
    expect(await keyCount()).toBe(before);
  });
});
