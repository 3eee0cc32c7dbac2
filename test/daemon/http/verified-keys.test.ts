import { describe, expect, it } from 'vitest';
import { VerifiedKeys } from '../../../daemon/http/verified-keys.ts';
import { createApiKey } from '../../../daemon/store/api-keys.ts';
import type { ApiKeyRecord } from '../../../daemon/store/keys-file.ts';

const now = new Date('2030-06-01T12:00:00Z');

function mint(expiresAt: Date | null = null) {
  const input = { name: 'bot', scopes: ['server:read' as const], allowIps: [], expiresAt };
  return createApiKey({ ...input, ownerPlatformId: null, ownerSocialId: null }, now);
}

const index = (...records: ApiKeyRecord[]) => new Map(records.map((record) => [record.id, record]));

describe('VerifiedKeys', () => {
  it('answers a key that verified from the cache while the snapshot is the same', () => {
    const { key, record } = mint();
    const keys = index(record);
    const cache = new VerifiedKeys();
    const first = cache.verify(keys, key, now);
    expect(first).toEqual({ ok: true, record });
    expect(cache.verify(keys, key, now)).toBe(first);
  });

  it('refuses a key revoked in the next snapshot at once', () => {
    const { key, record } = mint();
    const cache = new VerifiedKeys();
    expect(cache.verify(index(record), key, now).ok).toBe(true);
    const revoked = index({ ...record, revokedAt: now });
    expect(cache.verify(revoked, key, now)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('refuses a key deleted from the next snapshot', () => {
    const { key, record } = mint();
    const cache = new VerifiedKeys();
    expect(cache.verify(index(record), key, now).ok).toBe(true);
    expect(cache.verify(index(), key, now)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('refuses a cached key once it has expired', () => {
    const expiresAt = new Date(now.getTime() + 1_000);
    const { key, record } = mint(expiresAt);
    const keys = index(record);
    const cache = new VerifiedKeys();
    expect(cache.verify(keys, key, now).ok).toBe(true);
    expect(cache.verify(keys, key, expiresAt)).toEqual({ ok: false, reason: 'expired' });
  });

  it('keeps no failure and never holds more than its bound', () => {
    const minted = Array.from({ length: 5 }, () => mint());
    const keys = index(...minted.map((m) => m.record));
    const cache = new VerifiedKeys(2);
    const key = minted[0]!.key;
    const forged = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    expect(cache.verify(keys, forged, now)).toEqual({ ok: false, reason: 'mismatch' });
    for (const { key } of minted) expect(cache.verify(keys, key, now).ok).toBe(true);
    for (const { key } of minted) expect(cache.verify(keys, key, now).ok).toBe(true);
    expect(cache.verify(keys, forged, now).ok).toBe(false);
  });
});
