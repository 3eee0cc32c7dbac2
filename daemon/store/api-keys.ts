/**
 * API key text, creation and verification (spec "Authentication").
 *
 * A key reads `mg_live_<id>_<secret>`: the id (12 characters a-z0-9) finds the record without a
 * scan, the secret (40 base62 characters, about 238 bits) is what makes it unguessable. Only the
 * SHA-256 of the whole text is stored; verification hashes the presented text and compares the
 * two digests with crypto.timingSafeEqual, also for an unknown id, so the answer time does not
 * tell an attacker which ids exist.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Scope } from '../scopes.ts';
import type { ApiKeyRecord } from './keys-file.ts';
import { BASE62, LOWER_ALPHANUMERIC, randomText } from './random-text.ts';

export const API_KEY_PREFIX = 'mg_live_';
export const API_KEY_ID_LENGTH = 12;
export const API_KEY_SECRET_LENGTH = 40;

const API_KEY_PATTERN = /^mg_live_([a-z0-9]{12})_([A-Za-z0-9]{40})$/;

/** Compared against when the id is unknown, so that path costs the same as a known one. */
const UNKNOWN_KEY_HASH = Buffer.alloc(32);

export type ApiKeyFailure = 'malformed' | 'unknown' | 'mismatch' | 'revoked' | 'expired';

export type ApiKeyVerdict = { ok: true; record: ApiKeyRecord } | { ok: false; reason: ApiKeyFailure };

export interface NewApiKey {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly allowIps: readonly string[];
  readonly ownerPlatformId: string | null;
  readonly ownerSocialId: string | null;
  readonly expiresAt: Date | null;
}

/** The id of a well-formed key text, or null when the text is not a modgate key. */
export function parseApiKey(text: string): { id: string } | null {
  const match = API_KEY_PATTERN.exec(text);
  return match?.[1] === undefined ? null : { id: match[1] };
}

/** Hex SHA-256 of the full key text: the only form in which a key is stored. */
export function hashApiKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A new key and the record to store for it. `takenIds` are the ids already in keys.json; an id
 * collision (about one in 10^18 per pair) is simply drawn again.
 */
export function createApiKey(
  input: NewApiKey,
  now: Date,
  takenIds: ReadonlySet<string> = new Set(),
): { key: string; record: ApiKeyRecord } {
  let id = randomText(LOWER_ALPHANUMERIC, API_KEY_ID_LENGTH);
  while (takenIds.has(id)) id = randomText(LOWER_ALPHANUMERIC, API_KEY_ID_LENGTH);
  const key = `${API_KEY_PREFIX}${id}_${randomText(BASE62, API_KEY_SECRET_LENGTH)}`;
  const record: ApiKeyRecord = {
    id,
    name: input.name,
    hash: hashApiKey(key),
    scopes: [...input.scopes],
    allowIps: [...input.allowIps],
    ownerPlatformId: input.ownerPlatformId,
    ownerSocialId: input.ownerSocialId,
    createdAt: now,
    expiresAt: input.expiresAt,
    revokedAt: null,
    rolledFrom: null,
    rolledTo: null,
  };
  return { key, record };
}

/**
 * Checks a presented key. The secret is checked before revocation and expiry, so only the
 * holder of the real key learns that it was revoked or has expired.
 */
export function verifyApiKey(
  keysById: ReadonlyMap<string, ApiKeyRecord>,
  text: string,
  now: Date,
): ApiKeyVerdict {
  const parsed = parseApiKey(text);
  if (parsed === null) return { ok: false, reason: 'malformed' };
  const record = keysById.get(parsed.id);
  const presented = createHash('sha256').update(text, 'utf8').digest();
  const stored = record === undefined ? UNKNOWN_KEY_HASH : Buffer.from(record.hash, 'hex');
  const matches = stored.length === presented.length && timingSafeEqual(presented, stored);
  if (record === undefined) return { ok: false, reason: 'unknown' };
  if (!matches) return { ok: false, reason: 'mismatch' };
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked' };
  if (isKeyExpired(record, now)) return { ok: false, reason: 'expired' };
  return { ok: true, record };
}

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

/** What `keys list` shows: revoked wins over expired. */
export function apiKeyStatus(record: ApiKeyRecord, now: Date): ApiKeyStatus {
  if (record.revokedAt !== null) return 'revoked';
  return isKeyExpired(record, now) ? 'expired' : 'active';
}

export function isKeyExpired(record: ApiKeyRecord, now: Date): boolean {
  return record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime();
}
