import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdminTokens } from '../../../daemon/admin/admin-tokens.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import {
  adminTokensFile,
  createAdminToken,
  revokeAdminToken,
  type CreatedAdminToken,
} from '../../../daemon/store/admin-tokens.ts';
import { DataDir, type Snapshot } from '../../../daemon/store/data-dir.ts';
import { makeDataDir, type TestDataDir } from '../../../harness/data-dir.ts';
import { eventually } from '../../../harness/stack.ts';

describe('AdminTokens', () => {
  let data: TestDataDir;
  let dataDir: DataDir;
  let snapshot: Snapshot;
  let created: CreatedAdminToken;

  beforeEach(async () => {
    data = await makeDataDir();
    dataDir = await DataDir.open(data.dir);
    created = await createAdminToken(dataDir, 'ops', new Date());
    snapshot = await dataDir.snapshot();
  });

  /** Closed after each test, as the daemon closes its own: a pending write's timer must not outlive the file. */
  const opened: AdminTokens[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((tokens) => tokens.close()));
    await data.remove();
  });

  const tokensOf = (options: { flushDelayMs?: number } = {}) => {
    const tokens = new AdminTokens({ dataDir, snapshot: () => snapshot, log: silentLogger, ...options });
    opened.push(tokens);
    return tokens;
  };

  it('verifies the token text and nothing else', () => {
    const tokens = tokensOf();
    expect(tokens.verify(created.token)?.id).toBe(created.id);
    for (const wrong of [
      '',
      'mgadm_',
      created.token.slice(0, -1),
      `${created.token}x`,
      created.token.toUpperCase(),
    ]) {
      expect(tokens.verify(wrong)).toBeNull();
    }
  });

  it('records the last use in memory at once and in the file after the delay, without a write per request', async () => {
    const tokens = tokensOf({ flushDelayMs: 50 });
    for (let i = 0; i < 100; i++) tokens.verify(created.token);
    const record = snapshot.adminTokensById.get(created.id);
    expect(record && tokens.lastUsedAt(record)).toBeInstanceOf(Date);
    expect((await dataDir.read(adminTokensFile))[0]?.lastUsedAt).toBeNull();
    await eventually(async () => (await dataDir.read(adminTokensFile))[0]?.lastUsedAt !== null);
    await tokens.close();
  });

  it('writes a pending use at close', async () => {
    const tokens = tokensOf();
    tokens.verify(created.token);
    await tokens.close();
    expect((await dataDir.read(adminTokensFile))[0]?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses a revoked token and tells listeners the moment the daemon loads the change', async () => {
    const tokens = tokensOf();
    tokens.verify(created.token);
    const revoked: string[] = [];
    tokens.onRevoked((id) => revoked.push(id));
    await revokeAdminToken(dataDir, created.id, new Date());
    snapshot = await dataDir.snapshot();
    tokens.snapshotChanged(snapshot);
    expect(revoked).toEqual([created.id]);
    expect(tokens.verify(created.token)).toBeNull();
    tokens.snapshotChanged(snapshot);
    expect(revoked).toEqual([created.id]);
    // Its last use before the revocation is still recorded.
    await tokens.close();
    expect((await dataDir.read(adminTokensFile))[0]?.lastUsedAt).toBeInstanceOf(Date);
  });
});
