import { describe, expect, it } from 'vitest';
import { verifyApiKey } from '../../../daemon/store/api-keys.ts';
import { DataDir } from '../../../daemon/store/data-dir.ts';
import {
  createKey,
  KeyAdminError,
  keyView,
  MAX_ALLOW_IPS,
  revokeKey,
  rollKey,
  updateKey,
  type KeyRequest,
} from '../../../daemon/store/key-admin.ts';
import { indexById, keysFile } from '../../../daemon/store/keys-file.ts';
import { runOk } from '../../../harness/cli.ts';
import { premiumDataDir } from '../../../harness/data-dir.ts';
import { dataDirPath } from './temp-dir.ts';

const NOW = new Date('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;
const REQUEST: KeyRequest = {
  name: 'bot',
  scopes: ['server:read'],
  allowIps: [],
  ownerPlatformId: null,
  ownerSocialId: null,
  expiresInMs: null,
};

async function openPremium(): Promise<DataDir> {
  return DataDir.open(await premiumDataDir(await dataDirPath()));
}

async function verdictAt(dataDir: DataDir, key: string, at: Date) {
  return verifyApiKey(indexById(await dataDir.read(keysFile)), key, at);
}

function refusal(code: string) {
  return expect.objectContaining({ name: 'KeyAdminError', code });
}

describe('createKey', () => {
  it('refuses a server without an active premium plan with premium_required', async () => {
    const dir = await dataDirPath();
    await runOk(['init', '--data-dir', dir]);
    const dataDir = await DataDir.open(dir);
    await expect(createKey(dataDir, REQUEST, NOW)).rejects.toEqual(refusal('premium_required'));
    expect(await dataDir.read(keysFile)).toEqual([]);
  });

  it('refuses more allowlist entries than the limit, and writes nothing', async () => {
    const dataDir = await openPremium();
    const allowIps = Array.from({ length: MAX_ALLOW_IPS + 1 }, (_, i) => `10.0.${i}.0/24`);
    await expect(createKey(dataDir, { ...REQUEST, allowIps }, NOW)).rejects.toEqual(refusal('invalid_input'));
    expect(await dataDir.read(keysFile)).toEqual([]);
  });

  it('stores a key that verifies and expires after expires_in', async () => {
    const dataDir = await openPremium();
    const created = await createKey(dataDir, { ...REQUEST, expiresInMs: HOUR }, NOW);
    expect((await verdictAt(dataDir, created.key, NOW)).ok).toBe(true);
    expect(await verdictAt(dataDir, created.key, new Date(NOW.getTime() + HOUR))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});

describe('updateKey', () => {
  it('changes the name, the allowlist and the expiry, and leaves the rest', async () => {
    const dataDir = await openPremium();
    const created = await createKey(dataDir, REQUEST, NOW);
    const expiresAt = new Date(NOW.getTime() + HOUR);
    const updated = await updateKey(
      dataDir,
      created.record.id,
      { name: 'renamed', allowIps: ['10.0.0.0/8'], expiresAt },
      NOW,
    );
    expect(updated).toMatchObject({
      name: 'renamed',
      allowIps: ['10.0.0.0/8'],
      expiresAt,
      scopes: ['server:read'],
    });
    const cleared = await updateKey(dataDir, created.record.id, { expiresAt: null }, NOW);
    expect(cleared).toMatchObject({ name: 'renamed', expiresAt: null });
  });

  it('refuses an expiry in the past, a revoked key and an unknown id', async () => {
    const dataDir = await openPremium();
    const created = await createKey(dataDir, REQUEST, NOW);
    const id = created.record.id;
    await expect(updateKey(dataDir, id, { expiresAt: new Date(NOW.getTime() - 1) }, NOW)).rejects.toEqual(
      refusal('invalid_input'),
    );
    await revokeKey(dataDir, id, NOW);
    await expect(updateKey(dataDir, id, { name: 'again' }, NOW)).rejects.toEqual(refusal('key_not_active'));
    await expect(updateKey(dataDir, 'abcdefabcdef', { name: 'x' }, NOW)).rejects.toEqual(
      refusal('key_not_found'),
    );
  });
});

describe('rollKey', () => {
  it('issues a new key at once and lets the old one work until the overlap ends', async () => {
    const dataDir = await openPremium();
    const old = await createKey(dataDir, REQUEST, NOW);
    const rolled = await rollKey(dataDir, old.record.id, HOUR, NOW);
    expect(rolled.record.id).not.toBe(old.record.id);
    expect(rolled.record).toMatchObject({ name: 'bot', scopes: ['server:read'], rolledFrom: old.record.id });
    expect(rolled.old).toMatchObject({
      rolledTo: rolled.record.id,
      expiresAt: new Date(NOW.getTime() + HOUR),
    });
    const beforeEnd = new Date(NOW.getTime() + HOUR - 1);
    expect((await verdictAt(dataDir, rolled.key, NOW)).ok).toBe(true);
    expect((await verdictAt(dataDir, old.key, beforeEnd)).ok).toBe(true);
    expect(await verdictAt(dataDir, old.key, new Date(NOW.getTime() + HOUR))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('gives the new key the old one’s lifetime and never lengthens the old one', async () => {
    const dataDir = await openPremium();
    const old = await createKey(dataDir, { ...REQUEST, expiresInMs: 2 * HOUR }, NOW);
    const later = new Date(NOW.getTime() + HOUR);
    const rolled = await rollKey(dataDir, old.record.id, 24 * HOUR, later);
    expect(rolled.record.expiresAt).toEqual(new Date(later.getTime() + 2 * HOUR));
    expect(rolled.old.expiresAt).toEqual(new Date(NOW.getTime() + 2 * HOUR));
  });

  it('refuses to roll a key twice, a revoked key, and without premium', async () => {
    const dataDir = await openPremium();
    const old = await createKey(dataDir, REQUEST, NOW);
    await rollKey(dataDir, old.record.id, HOUR, NOW);
    await expect(rollKey(dataDir, old.record.id, HOUR, NOW)).rejects.toEqual(refusal('key_rolled'));
    const other = await createKey(dataDir, REQUEST, NOW);
    await revokeKey(dataDir, other.record.id, NOW);
    await expect(rollKey(dataDir, other.record.id, HOUR, NOW)).rejects.toEqual(refusal('key_not_active'));
    await runOk(['plan', 'set', '--data-dir', dataDir.path, '--premium', 'off']);
    const third = (await dataDir.read(keysFile)).length;
    await expect(rollKey(dataDir, old.record.id, HOUR, NOW)).rejects.toBeInstanceOf(KeyAdminError);
    expect((await dataDir.read(keysFile)).length).toBe(third);
  });
});

describe('keyView', () => {
  it('shows the last use and never the key text or its hash', async () => {
    const dataDir = await openPremium();
    const created = await createKey(dataDir, REQUEST, NOW);
    const view = keyView(created.record, { at: NOW, ip: '203.0.113.7' }, NOW);
    expect(view).toMatchObject({
      status: 'active',
      last_used_at: NOW.toISOString(),
      last_used_ip: '203.0.113.7',
    });
    const text = JSON.stringify(view);
    expect(text).not.toContain(created.record.hash);
    expect(text).not.toContain(created.key.slice(-40));
  });
});
