/**
 * The API key lifecycle over keys.json: create, update, revoke and roll, and the one shape in
 * which a key is shown (never its text or hash). The admin API (daemon/admin/routes/keys.ts)
 * calls these functions, in the daemon and in the CLI's in-process admin alike, so a key made or
 * changed either way passes the same checks (docs/data-dir.md, "keys.json"). Every change is one DataDir.update,
 * under the data dir lock; a caller that serves requests applies the new snapshot afterwards.
 */
import { createApiKey, apiKeyStatus, type ApiKeyStatus, type NewApiKey } from './api-keys.ts';
import type { DataDir } from './data-dir.ts';
import { formatDuration, MAX_DURATION_MS } from './input-rules.ts';
import type { KeyUse } from './key-usage.ts';
import { keysFile, type ApiKeyRecord } from './keys-file.ts';
import { isPremiumActive, stateFile } from './state.ts';
import type { Scope } from '../scopes.ts';

export type KeyAdminErrorCode =
  /** No key with that id in keys.json. */
  | 'key_not_found'
  /** Creating or rolling a key needs an active premium plan (docs/errors.md, premium_required). */
  | 'premium_required'
  /** The key is revoked or expired: it can be read, not changed or rolled. */
  | 'key_not_active'
  /** The key was rolled already: roll its successor instead. */
  | 'key_rolled'
  /** A value is outside its bounds (too many allowlist entries, an expiry in the past). */
  | 'invalid_input';

export class KeyAdminError extends Error {
  constructor(
    readonly code: KeyAdminErrorCode,
    message: string,
    /** The input field at fault (`allow_ips`, `expires_at`, `expire_old_in`), for invalid_input. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'KeyAdminError';
  }
}

/** At most this many allowlist entries per key: each is checked on every request. */
export const MAX_ALLOW_IPS = 64;
/** How long a rolled key's predecessor may keep working: at most 30 days, 1 hour unless told. */
export const MAX_ROLL_OVERLAP_MS = 30 * 86_400_000;
export const DEFAULT_ROLL_OVERLAP_MS = 3_600_000;

/** A new key as asked for: its lifetime from creation (null: never expires), not an instant. */
export interface KeyRequest extends Omit<NewApiKey, 'expiresAt'> {
  readonly expiresInMs: number | null;
}

/** What PATCH (or a future CLI command) may change; an absent field stays as it is. */
export interface KeyChanges {
  readonly name?: string;
  readonly allowIps?: readonly string[];
  /** null: never expires. Must lie in the future, at most ten years away. */
  readonly expiresAt?: Date | null;
}

/** A key made now: its text, shown once, and the record stored for it. */
export interface IssuedKey {
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export interface RolledKey extends IssuedKey {
  /** The old key as stored after the roll: expiring at the end of the overlap. */
  readonly old: ApiKeyRecord;
}

/** Creates a key; refused without an active premium plan, as the API refuses key creation. */
export async function createKey(dataDir: DataDir, request: KeyRequest, now: Date): Promise<IssuedKey> {
  checkAllowIps(request.allowIps);
  await requirePremium(dataDir, now);
  let issued: IssuedKey | undefined;
  await dataDir.update(keysFile, (records) => {
    const takenIds = new Set(records.map((record) => record.id));
    const expiresAt = request.expiresInMs === null ? null : new Date(now.getTime() + request.expiresInMs);
    issued = createApiKey({ ...request, expiresAt }, now, takenIds);
    return [...records, issued.record];
  });
  return issued as IssuedKey;
}

/** Changes a key's name, allowlist or expiry; a revoked key is refused (key_not_active). */
export async function updateKey(
  dataDir: DataDir,
  id: string,
  changes: KeyChanges,
  now: Date,
): Promise<ApiKeyRecord> {
  if (changes.allowIps !== undefined) checkAllowIps(changes.allowIps);
  if (changes.expiresAt) checkExpiry(changes.expiresAt, now);
  const update = await dataDir.update(keysFile, (records) =>
    replaceKey(records, id, (record) => {
      if (record.revokedAt !== null) throw notActive(record, 'revoked');
      return {
        ...record,
        name: changes.name ?? record.name,
        allowIps: changes.allowIps ? [...changes.allowIps] : record.allowIps,
        expiresAt: changes.expiresAt === undefined ? record.expiresAt : changes.expiresAt,
      };
    }),
  );
  return findKey(update.after, id);
}

/** Revokes a key; revoking it again changes nothing (`changed` false). The record stays. */
export async function revokeKey(
  dataDir: DataDir,
  id: string,
  now: Date,
): Promise<{ record: ApiKeyRecord; changed: boolean }> {
  const update = await dataDir.update(keysFile, (records) =>
    replaceKey(records, id, (record) => (record.revokedAt === null ? { ...record, revokedAt: now } : record)),
  );
  return { record: findKey(update.after, id), changed: update.changed };
}

/**
 * Replaces an active key by a new one with a new id (the id is part of the key text) and the
 * same name, scopes, allowlist, owner and lifetime; the old key keeps working for `overlapMs`
 * (never longer than it would have anyway), then is refused as expired. Each record names the
 * other (`rolled_from`, `rolled_to`); a key is rolled once: roll its successor next time.
 */
export async function rollKey(
  dataDir: DataDir,
  id: string,
  overlapMs: number,
  now: Date,
): Promise<RolledKey> {
  checkRollOverlap(overlapMs);
  await requirePremium(dataDir, now);
  let rolled: RolledKey | undefined;
  await dataDir.update(keysFile, (records) => {
    const old = findKey(records, id);
    const status = apiKeyStatus(old, now);
    if (status !== 'active') throw notActive(old, status);
    if (old.rolledTo !== null) {
      throw new KeyAdminError('key_rolled', `key ${id} was already rolled to ${old.rolledTo}; roll that key`);
    }
    const issued = createApiKey(successorOf(old, now), now, new Set(records.map((record) => record.id)));
    const record = { ...issued.record, rolledFrom: old.id };
    const overlapEnds = new Date(now.getTime() + overlapMs);
    const expiresAt = old.expiresAt !== null && old.expiresAt < overlapEnds ? old.expiresAt : overlapEnds;
    rolled = { key: issued.key, record, old: { ...old, expiresAt, rolledTo: record.id } };
    return [
      ...records.map((candidate) => (candidate.id === id ? (rolled as RolledKey).old : candidate)),
      record,
    ];
  });
  return rolled as RolledKey;
}

/** The record with this id, or key_not_found. */
export function findKey(records: readonly ApiKeyRecord[], id: string): ApiKeyRecord {
  const record = records.find((candidate) => candidate.id === id);
  if (record === undefined) throw new KeyAdminError('key_not_found', `no key with id ${id}`);
  return record;
}

/** How a key is shown by `keys list --json` and the admin API: never its text or its hash. */
export interface KeyView {
  id: string;
  name: string;
  status: ApiKeyStatus;
  scopes: Scope[];
  allow_ips: string[];
  owner_platform_id: string | null;
  owner_social_id: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  rolled_from: string | null;
  rolled_to: string | null;
}

export function keyView(record: ApiKeyRecord, use: KeyUse | undefined, now: Date): KeyView {
  return {
    id: record.id,
    name: record.name,
    status: apiKeyStatus(record, now),
    scopes: [...record.scopes],
    allow_ips: [...record.allowIps],
    owner_platform_id: record.ownerPlatformId,
    owner_social_id: record.ownerSocialId,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
    last_used_at: use?.at.toISOString() ?? null,
    last_used_ip: use?.ip ?? null,
    rolled_from: record.rolledFrom,
    rolled_to: record.rolledTo,
  };
}

async function requirePremium(dataDir: DataDir, now: Date): Promise<void> {
  const state = await dataDir.read(stateFile);
  if (!isPremiumActive(state.plan, now)) {
    throw new KeyAdminError(
      'premium_required',
      'this server has no active premium plan, so no API key can be created',
    );
  }
}

/** A roll's overlap within its bounds (`modgate keys roll` checks it before it asks). */
export function checkRollOverlap(overlapMs: number): void {
  if (overlapMs > MAX_ROLL_OVERLAP_MS) {
    throw new KeyAdminError(
      'invalid_input',
      `the overlap is at most ${formatDuration(MAX_ROLL_OVERLAP_MS)}`,
      'expire_old_in',
    );
  }
}

/** At most MAX_ALLOW_IPS entries (`modgate keys create` checks it before it asks). */
export function checkAllowIps(allowIps: readonly string[]): void {
  if (allowIps.length > MAX_ALLOW_IPS) {
    throw new KeyAdminError(
      'invalid_input',
      `at most ${MAX_ALLOW_IPS} allowlist entries per key`,
      'allow_ips',
    );
  }
}

function checkExpiry(expiresAt: Date, now: Date): void {
  const ms = expiresAt.getTime() - now.getTime();
  if (ms <= 0) throw new KeyAdminError('invalid_input', 'the expiry must lie in the future', 'expires_at');
  if (ms > MAX_DURATION_MS) {
    throw new KeyAdminError('invalid_input', 'the expiry is at most ten years away', 'expires_at');
  }
}

function replaceKey(
  records: readonly ApiKeyRecord[],
  id: string,
  change: (record: ApiKeyRecord) => ApiKeyRecord,
): ApiKeyRecord[] {
  findKey(records, id);
  return records.map((record) => (record.id === id ? change(record) : record));
}

/** The new key's settings: the old one's, with the same lifetime from now when it had one. */
function successorOf(old: ApiKeyRecord, now: Date) {
  const lifetimeMs = old.expiresAt === null ? null : old.expiresAt.getTime() - old.createdAt.getTime();
  return {
    ...old,
    expiresAt: lifetimeMs === null ? null : new Date(now.getTime() + lifetimeMs),
  };
}

function notActive(record: ApiKeyRecord, status: 'revoked' | 'expired'): KeyAdminError {
  return new KeyAdminError('key_not_active', `key ${record.id} is ${status}; it can no longer be changed`);
}
