/**
 * keys.json: the API keys. Only the SHA-256 of a key is stored, never the key
 * (docs/data-dir.md); the key text is shown once, by `modgate keys create`.
 */
import * as z from 'zod';
import { SCOPES, type Scope } from '../scopes.ts';
import { normaliseAllowIp } from './allow-ip.ts';
import { DATA_FILES } from './data-dir-layout.ts';
import { dateField, defineDataFile, nullableDateField } from './data-file.ts';

export interface ApiKeyRecord {
  /** The public part of the key (`mg_live_<id>_…`), 12 characters a-z0-9. */
  readonly id: string;
  readonly name: string;
  /** Hex SHA-256 of the full key text. */
  readonly hash: string;
  readonly scopes: readonly Scope[];
  /** Canonical CIDR ranges (see allow-ip.ts); empty means any source address. */
  readonly allowIps: readonly string[];
  /** The player the key acts for, when moderation writes are attributed to a person. */
  readonly ownerPlatformId: string | null;
  readonly ownerSocialId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
  /** The key this one replaced by `keys roll` (docs/data-dir.md, "keys.json"); null otherwise. */
  readonly rolledFrom: string | null;
  /** The key that replaced this one by `keys roll`; null until it is rolled. */
  readonly rolledTo: string | null;
}

export const API_KEY_ID_PATTERN = /^[a-z0-9]{12}$/;
export const PLATFORM_ID_PATTERN = /^[0-9]{17}$/;
export const SOCIAL_ID_PATTERN = /^[0-9]{17,20}$/;
export const KEY_NAME_MAX_LENGTH = 100;

export const allowIpField = z.string().transform((text, ctx) => {
  const canonical = normaliseAllowIp(text);
  if (canonical === null) {
    ctx.addIssue({ code: 'custom', message: `not an IP address or CIDR range: ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return canonical;
});

const recordSchema = z
  .object({
    id: z.string().regex(API_KEY_ID_PATTERN, 'expected 12 characters a-z0-9'),
    name: z.string().min(1).max(KEY_NAME_MAX_LENGTH),
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256'),
    scopes: z.array(z.enum(SCOPES)).min(1),
    allow_ips: z.array(allowIpField),
    owner_platform_id: z.string().regex(PLATFORM_ID_PATTERN, 'expected 17 digits').nullable(),
    owner_social_id: z.string().regex(SOCIAL_ID_PATTERN, 'expected 17 to 20 digits').nullable(),
    created_at: dateField,
    expires_at: nullableDateField,
    revoked_at: nullableDateField,
    rolled_from: z.string().regex(API_KEY_ID_PATTERN).nullable().optional(),
    rolled_to: z.string().regex(API_KEY_ID_PATTERN).nullable().optional(),
  })
  .transform((file): ApiKeyRecord => ({
    id: file.id,
    name: file.name,
    hash: file.hash,
    scopes: file.scopes,
    allowIps: file.allow_ips,
    ownerPlatformId: file.owner_platform_id,
    ownerSocialId: file.owner_social_id,
    createdAt: file.created_at,
    expiresAt: file.expires_at,
    revokedAt: file.revoked_at,
    rolledFrom: file.rolled_from ?? null,
    rolledTo: file.rolled_to ?? null,
  }));

const keysSchema = z
  .object({ keys: z.array(recordSchema) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.keys.forEach((record, index) => {
      if (seen.has(record.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['keys', index, 'id'],
          message: `duplicate key id ${record.id}`,
        });
      }
      seen.add(record.id);
    });
  })
  .transform((file): readonly ApiKeyRecord[] => file.keys);

export const keysFile = defineDataFile<readonly ApiKeyRecord[]>({
  name: DATA_FILES.keys,
  schema: keysSchema,
  serialize: (records) => ({ keys: records.map(serializeRecord) }),
});

function serializeRecord(record: ApiKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    hash: record.hash,
    scopes: [...record.scopes],
    allow_ips: [...record.allowIps],
    owner_platform_id: record.ownerPlatformId,
    owner_social_id: record.ownerSocialId,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
    // Written only for rolled keys, so a file without rolls reads as it always did.
    ...(record.rolledFrom === null ? {} : { rolled_from: record.rolledFrom }),
    ...(record.rolledTo === null ? {} : { rolled_to: record.rolledTo }),
  };
}

/** Records by id (API keys, admin tokens), in the file's order. */
export function indexById<R extends { readonly id: string }>(records: readonly R[]): ReadonlyMap<string, R> {
  return new Map(records.map((record) => [record.id, record]));
}
