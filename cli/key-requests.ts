/**
 * The key commands' requests to the admin API (/admin/v1/keys, docs/admin.md), sent to the
 * running daemon or the in-process admin (cli/admin-client.ts), and their answers read back into
 * the shapes `modgate keys` prints. The API's refusals are named as the CLI documents them by
 * the one mapping (cli/admin-errors.ts): not_found is key_not_found naming `keys list`,
 * premium_required names the command that enables premium.
 */
import * as z from 'zod';
import { adminKey, issuedKey, rolledKey } from '../daemon/admin/routes/keys.ts';
import { lazySchema } from '../protocol/lazy-schema.ts';
import type { components } from '../panel/admin-schema.ts';
import { KeyAdminError, type KeyRequest, type KeyView } from '../daemon/store/key-admin.ts';
import type { ApiKeyRecord } from '../daemon/store/keys-file.ts';
import { parsed as checked, unexpectedAnswer } from './admin-answers.ts';
import type { AdminClient } from './admin-client.ts';
import { UsageError } from './errors.ts';

/** A key as shown: every field of its record but the hash, which never leaves the data dir. */
export type ShownKey = Omit<ApiKeyRecord, 'hash'>;

/** An answer's key, in the shape the admin API's document gives (panel/admin-schema.ts, generated). */
type AdminKey = components['schemas']['AdminKey'];

// Answers are checked against the routes' own schemas (daemon/admin/routes/keys.ts): a daemon of
// another version that answers otherwise is said so, and no copy of the shape is kept here.
const pageAnswer = lazySchema(() =>
  z.looseObject({ data: z.array(adminKey()), has_more: z.boolean(), next_cursor: z.string().nullable() }),
);

/** The most pages `keys list` follows: 100 keys a page. */
const MAX_PAGES = 1_000;

/**
 * A key rule the command checks before it asks (daemon/store/key-admin.ts), so a value out of
 * bounds is refused as the option's usage error, in the rule's own words.
 */
export function checkOption(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof KeyAdminError) throw new UsageError(error.message);
    throw error;
  }
}

export async function adminCreateKey(
  admin: AdminClient,
  request: KeyRequest,
): Promise<{ key: string; record: ShownKey }> {
  const body = {
    name: request.name,
    scopes: request.scopes,
    allow_ips: request.allowIps,
    ...(request.expiresInMs === null ? {} : { expires_in: durationText(request.expiresInMs) }),
    ...(request.ownerPlatformId === null ? {} : { owner_platform_id: request.ownerPlatformId }),
    ...(request.ownerSocialId === null ? {} : { owner_social_id: request.ownerSocialId }),
  };
  const answer = parsed(issuedKey(), (await admin.send({ method: 'POST', path: '/keys', body })).body);
  return { key: issuedText(answer.key), record: shownKey(answer) };
}

/** Every key, following the pages. */
export async function adminListKeys(admin: AdminClient): Promise<KeyView[]> {
  const views: KeyView[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = parsed(
      pageAnswer(),
      (await admin.send({ method: 'GET', path: `/keys?limit=100${query}` })).body,
    );
    views.push(...page.data.map(viewOf));
    if (!page.has_more || page.next_cursor === null) return views;
    cursor = page.next_cursor;
  }
  throw unexpectedAnswer('/keys');
}

/** DELETE /keys/{id}; `changed` is whether it was not revoked before. */
export async function adminRevokeKey(
  admin: AdminClient,
  id: string,
): Promise<{ record: ShownKey; changed: boolean }> {
  const before = await keyOf(admin, id);
  await admin.send({ method: 'DELETE', path: `/keys/${id}` });
  return { record: await keyOf(admin, id), changed: before.revokedAt === null };
}

export async function adminRollKey(
  admin: AdminClient,
  id: string,
  overlapMs: number,
): Promise<{ key: string; record: ShownKey; old: ShownKey }> {
  const call = {
    method: 'POST',
    path: `/keys/${id}/roll`,
    body: { expire_old_in: durationText(overlapMs) },
  } as const;
  const answer = parsed(rolledKey(), (await admin.send(call)).body);
  return { key: issuedText(answer.key), record: shownKey(answer), old: shownKey(answer.old) };
}

async function keyOf(admin: AdminClient, id: string): Promise<ShownKey> {
  return shownKey(parsed(adminKey(), (await admin.send({ method: 'GET', path: `/keys/${id}` })).body));
}

/** A new key's text: null only in an Idempotency-Key replay, which the CLI never asks for. */
function issuedText(key: string | null): string {
  if (key === null) throw unexpectedAnswer('/keys');
  return key;
}

function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  return checked(schema, body, '/keys');
}

function viewOf(answer: AdminKey): KeyView {
  return {
    id: answer.id,
    name: answer.name,
    status: answer.status,
    scopes: answer.scopes,
    allow_ips: answer.allow_ips,
    owner_platform_id: answer.owner_platform_id,
    owner_social_id: answer.owner_social_id,
    created_at: answer.created_at,
    expires_at: answer.expires_at,
    revoked_at: answer.revoked_at,
    last_used_at: answer.last_used_at,
    last_used_ip: answer.last_used_ip,
    rolled_from: answer.rolled_from,
    rolled_to: answer.rolled_to,
  };
}

function shownKey(answer: AdminKey): ShownKey {
  const dateOf = (text: string | null) => (text === null ? null : new Date(text));
  return {
    id: answer.id,
    name: answer.name,
    scopes: answer.scopes,
    allowIps: answer.allow_ips,
    ownerPlatformId: answer.owner_platform_id,
    ownerSocialId: answer.owner_social_id,
    createdAt: new Date(answer.created_at),
    expiresAt: dateOf(answer.expires_at),
    revokedAt: dateOf(answer.revoked_at),
    rolledFrom: answer.rolled_from,
    rolledTo: answer.rolled_to,
  };
}

/** A duration as the admin API takes it (`30d`, `12h`, `90m`): the largest whole unit. */
function durationText(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  return `${Math.round(ms / 60_000)}m`;
}
