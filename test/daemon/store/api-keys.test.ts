import type * as NodeCrypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiKeyRecord } from '../../../daemon/store/keys-file.ts';

const spies = vi.hoisted(() => ({
  timingSafeEqual: vi.fn<(a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => boolean>(),
}));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof NodeCrypto>();
  spies.timingSafeEqual.mockImplementation(actual.timingSafeEqual);
  return { ...actual, timingSafeEqual: spies.timingSafeEqual };
});

const { apiKeyStatus, createApiKey, hashApiKey, parseApiKey, verifyApiKey } =
  await import('../../../daemon/store/api-keys.ts');

const now = new Date('2030-06-01T12:00:00Z');
const KEY_FORMAT = /^mg_live_[a-z0-9]{12}_[A-Za-z0-9]{40}$/;

function mint(overrides: { expiresAt?: Date | null } = {}): { key: string; record: ApiKeyRecord } {
  return createApiKey(
    {
      name: 'bot',
      scopes: ['server:read'],
      allowIps: [],
      ownerPlatformId: null,
      ownerSocialId: null,
      expiresAt: overrides.expiresAt ?? null,
    },
    now,
  );
}

function index(...records: ApiKeyRecord[]): Map<string, ApiKeyRecord> {
  return new Map(records.map((record) => [record.id, record]));
}

beforeEach(() => {
  spies.timingSafeEqual.mockClear();
});

describe('createApiKey', () => {
  it('creates keys of the form mg_live_<12 a-z0-9>_<40 base62>', () => {
    for (let i = 0; i < 50; i += 1) expect(mint().key).toMatch(KEY_FORMAT);
  });

  it('stores the hex SHA-256 of the key and never the key', () => {
    const { key, record } = mint();
    expect(record.hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(record)).not.toContain(key.slice(-40));
  });

  it('puts the record id in the key text', () => {
    const { key, record } = mint();
    expect(parseApiKey(key)).toEqual({ id: record.id });
  });

  it('draws another id when the first one is taken', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 20; i += 1) taken.add(mint().record.id);
    const { record } = createApiKey(mint().record, now, taken);
    expect(taken.has(record.id)).toBe(false);
  });
});

describe('parseApiKey', () => {
  const valid = `mg_live_abcdefghij12_${'A1b2C3d4E5'.repeat(4)}`;

  it('accepts a well-formed key', () => {
    expect(parseApiKey(valid)).toEqual({ id: 'abcdefghij12' });
  });

  it.each([
    ['a test prefix', valid.replace('mg_live_', 'mg_test_')],
    ['an upper-case id', valid.replace('abcdefghij12', 'ABCDEFGHIJ12')],
    ['a short id', valid.replace('abcdefghij12', 'abcdefghij1')],
    ['a short secret', valid.slice(0, -1)],
    ['a long secret', `${valid}x`],
    ['a symbol in the secret', `${valid.slice(0, -1)}-`],
    ['surrounding whitespace', ` ${valid}`],
    ['a trailing newline', `${valid}\n`],
    ['the empty string', ''],
  ])('rejects %s', (_what, text) => {
    expect(parseApiKey(text)).toBeNull();
  });
});

describe('verifyApiKey', () => {
  it('accepts a valid key and returns its record', () => {
    const { key, record } = mint();
    expect(verifyApiKey(index(record), key, now)).toEqual({ ok: true, record });
  });

  it('reports a malformed key without looking it up', () => {
    expect(verifyApiKey(index(), 'Bearer nonsense', now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('reports an unknown id', () => {
    const { key } = mint();
    expect(verifyApiKey(index(), key, now)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('reports a key whose secret does not match', () => {
    const { key, record } = mint();
    const forged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    expect(verifyApiKey(index(record), forged, now)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports a revoked key', () => {
    const { key, record } = mint();
    expect(verifyApiKey(index({ ...record, revokedAt: now }), key, now)).toEqual({
      ok: false,
      reason: 'revoked',
    });
  });

  it('reports an expired key from its expiry instant on', () => {
    const { key, record } = mint({ expiresAt: now });
    expect(verifyApiKey(index(record), key, now)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyApiKey(index(record), key, new Date(now.getTime() - 1)).ok).toBe(true);
  });

  it('tells a wrong secret apart before revealing revocation or expiry', () => {
    const { key, record } = mint({ expiresAt: now });
    const forged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    expect(verifyApiKey(index({ ...record, revokedAt: now }), forged, now)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('compares the hashes with crypto.timingSafeEqual, also for an unknown id', () => {
    const { key, record } = mint();
    verifyApiKey(index(record), key, now);
    verifyApiKey(index(), key, now);
    expect(spies.timingSafeEqual).toHaveBeenCalledTimes(2);
    const [presented, stored] = spies.timingSafeEqual.mock.calls[0] ?? [];
    expect(Buffer.from(presented as Uint8Array).toString('hex')).toBe(hashApiKey(key));
    expect(Buffer.from(stored as Uint8Array).toString('hex')).toBe(record.hash);
  });
});

describe('apiKeyStatus', () => {
  it('says revoked over expired, and active otherwise', () => {
    const { record } = mint({ expiresAt: now });
    expect(apiKeyStatus(record, new Date(now.getTime() - 1))).toBe('active');
    expect(apiKeyStatus(record, now)).toBe('expired');
    expect(apiKeyStatus({ ...record, revokedAt: now }, now)).toBe('revoked');
  });
});
