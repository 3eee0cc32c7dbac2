/**
 * admin-tokens.json: the admin tokens that open the admin API's TCP listener (docs/admin.md,
 * "Admin tokens"). A token reads `mgadm_<id>_<secret>`: the id (12 characters a-z0-9) finds the
 * record, the secret (40 base62 characters, about 238 bits) makes it unguessable. Only the
 * SHA-256 of the whole text is stored, as keys.json does for API keys; verification compares
 * digests with crypto.timingSafeEqual, against a dummy digest for an unknown id too.
 *
 * Creation and revocation are the functions below, over the data dir: the admin API's
 * /admin/v1/tokens calls them, in the daemon or in the CLI's in-process admin.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { ADMIN_ROLES, type AdminRole } from '../admin/roles.ts';
import { ADMIN_FILES } from './data-dir-layout.ts';
import { type DataFileAccess, dateField, defineDataFile, nullableDateField } from './data-file.ts';
import { BASE62, LOWER_ALPHANUMERIC, randomText } from './random-text.ts';

export const ADMIN_TOKEN_PREFIX = 'mgadm_';
export const ADMIN_TOKEN_NAME_MAX_LENGTH = 100;
/** Tokens a data dir holds at most, revoked ones included: each is checked on every request. */
export const MAX_ADMIN_TOKENS = 100;

const ID_LENGTH = 12;
const SECRET_LENGTH = 40;
const TOKEN_PATTERN = /^mgadm_([a-z0-9]{12})_[A-Za-z0-9]{40}$/;
const UNKNOWN_TOKEN_HASH = Buffer.alloc(32);

export interface AdminTokenRecord {
  readonly id: string;
  readonly name: string;
  /** Hex SHA-256 of the full token text. */
  readonly hash: string;
  readonly createdAt: Date;
  /** Recorded by the daemon (debounced); null until first used. */
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  /** What the token may do (docs/admin.md, "Roles"); a record without one is an owner's. */
  readonly role: AdminRole;
  /**
   * A staff member's unspent sign-in link (docs/admin.md, "Staff sign-in"): the SHA-256 of its
   * code and when it stops working. Kept on disk, so a link survives a restart; spent by its
   * first use.
   */
  readonly invite: { readonly hash: string; readonly expiresAt: Date } | null;
}

/** A token's name: printable, 1 to 100 characters (the CLI and the API validate with this). */
export const adminTokenName = z
  .string()
  .trim()
  .min(1, 'a name is required')
  .max(ADMIN_TOKEN_NAME_MAX_LENGTH, `at most ${ADMIN_TOKEN_NAME_MAX_LENGTH} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');

export const ADMIN_TOKEN_ID_PATTERN = /^[a-z0-9]{12}$/;

const recordSchema = z
  .object({
    id: z.string().regex(ADMIN_TOKEN_ID_PATTERN, 'expected 12 characters a-z0-9'),
    name: z.string().min(1).max(ADMIN_TOKEN_NAME_MAX_LENGTH),
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256'),
    created_at: dateField,
    last_used_at: nullableDateField,
    revoked_at: nullableDateField,
    role: z.enum(ADMIN_ROLES).optional(),
    invite: z
      .object({ hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256'), expires_at: dateField })
      .strict()
      .optional(),
  })
  .strict()
  .transform((file): AdminTokenRecord => ({
    id: file.id,
    name: file.name,
    hash: file.hash,
    createdAt: file.created_at,
    lastUsedAt: file.last_used_at,
    revokedAt: file.revoked_at,
    role: file.role ?? 'owner',
    invite: file.invite === undefined ? null : { hash: file.invite.hash, expiresAt: file.invite.expires_at },
  }));

export const adminTokensFile = defineDataFile<readonly AdminTokenRecord[]>({
  name: ADMIN_FILES.tokens,
  schema: z
    .object({ tokens: z.array(recordSchema).max(MAX_ADMIN_TOKENS) })
    .transform((file): readonly AdminTokenRecord[] => file.tokens),
  serialize: (records) => ({
    tokens: records.map((record) => ({
      id: record.id,
      name: record.name,
      hash: record.hash,
      created_at: record.createdAt.toISOString(),
      last_used_at: record.lastUsedAt?.toISOString() ?? null,
      revoked_at: record.revokedAt?.toISOString() ?? null,
      role: record.role,
      ...(record.invite === null
        ? {}
        : { invite: { hash: record.invite.hash, expires_at: record.invite.expiresAt.toISOString() } }),
    })),
  }),
  whenMissing: [],
});

/** What `admin tokens create` prints and POST /admin/v1/tokens answers, once. */
export interface CreatedAdminToken {
  id: string;
  name: string;
  role: AdminRole;
  token: string;
  created_at: string;
}

/** A token as listed: never its text or hash. */
export interface AdminTokenView {
  id: string;
  name: string;
  status: 'active' | 'revoked';
  role: AdminRole;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export class AdminTokenError extends Error {
  constructor(
    readonly code: 'not_found' | 'too_many' | 'revoked',
    message: string,
  ) {
    super(message);
    this.name = 'AdminTokenError';
  }
}

/** Creates a token in the data dir and returns its text, the only time it is shown. */
export async function createAdminToken(
  dataDir: DataFileAccess,
  name: string,
  now: Date,
  role: AdminRole = 'owner',
): Promise<CreatedAdminToken> {
  let created: CreatedAdminToken | undefined;
  await dataDir.update(adminTokensFile, (records) => {
    if (records.length >= MAX_ADMIN_TOKENS) {
      throw new AdminTokenError(
        'too_many',
        `the data dir holds ${MAX_ADMIN_TOKENS} admin tokens, the most it may; revoked ones count too`,
      );
    }
    const taken = new Set(records.map((record) => record.id));
    let id = randomText(LOWER_ALPHANUMERIC, ID_LENGTH);
    while (taken.has(id)) id = randomText(LOWER_ALPHANUMERIC, ID_LENGTH);
    const token = `${ADMIN_TOKEN_PREFIX}${id}_${randomText(BASE62, SECRET_LENGTH)}`;
    const record: AdminTokenRecord = {
      id,
      name,
      hash: hashAdminToken(token),
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      role,
      invite: null,
    };
    created = { id, name, role, token, created_at: now.toISOString() };
    return [...records, record];
  });
  return created as CreatedAdminToken;
}

/** Marks a token revoked (idempotent); throws AdminTokenError `not_found` for an unknown id. */
export async function revokeAdminToken(
  dataDir: DataFileAccess,
  id: string,
  now: Date,
): Promise<AdminTokenView> {
  const { after } = await dataDir.update(adminTokensFile, (records) => {
    if (!records.some((record) => record.id === id)) {
      throw new AdminTokenError('not_found', `no admin token with id ${id}`);
    }
    return records.map((record) =>
      record.id === id && record.revokedAt === null ? { ...record, revokedAt: now, invite: null } : record,
    );
  });
  return viewOf(after.find((record) => record.id === id) as AdminTokenRecord);
}

export function viewOf(record: AdminTokenRecord): AdminTokenView {
  return {
    id: record.id,
    name: record.name,
    status: record.revokedAt === null ? 'active' : 'revoked',
    role: record.role,
    created_at: record.createdAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
  };
}

export function hashAdminToken(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The active token `text` is, or null. The digests are compared in constant time, also for a
 * malformed text or an unknown id, so the answer time does not tell which ids exist.
 */
export function verifyAdminToken(
  byId: ReadonlyMap<string, AdminTokenRecord>,
  text: string,
): AdminTokenRecord | null {
  const id = TOKEN_PATTERN.exec(text)?.[1];
  const record = id === undefined ? undefined : byId.get(id);
  const presented = createHash('sha256').update(text, 'utf8').digest();
  const stored = record === undefined ? UNKNOWN_TOKEN_HASH : Buffer.from(record.hash, 'hex');
  const matches = stored.length === presented.length && timingSafeEqual(presented, stored);
  if (record === undefined || !matches || record.revokedAt !== null) return null;
  return record;
}

/** The id an admin token's text names, whether or not such a token exists; null when malformed. */
export function adminTokenIdOf(text: string): string | null {
  return TOKEN_PATTERN.exec(text)?.[1] ?? null;
}

/** Whether `text` looks like an admin token (for the log redaction and the CLI's hints). */
export function isAdminTokenText(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

/** How long a staff member's sign-in link works by default: a week, for a message to be read. */
export const INVITE_TTL_MS = 7 * 24 * 3_600_000;

/**
 * Gives the active token `id` a new sign-in link (docs/admin.md, "Staff sign-in"), replacing an
 * unspent one; returns the code, the only time it is shown (the file keeps its SHA-256).
 */
export async function issueInvite(
  dataDir: DataFileAccess,
  id: string,
  now: Date,
  ttlMs: number = INVITE_TTL_MS,
): Promise<{ code: string; expires_at: string }> {
  const code = randomText(BASE62, SECRET_LENGTH);
  const expiresAt = new Date(now.getTime() + ttlMs);
  await dataDir.update(adminTokensFile, (records) => {
    const record = records.find((candidate) => candidate.id === id);
    if (record === undefined) throw new AdminTokenError('not_found', `no admin token with id ${id}`);
    if (record.revokedAt !== null) throw new AdminTokenError('revoked', `admin token ${id} is revoked`);
    const invite = { hash: hashAdminToken(code), expiresAt };
    return records.map((candidate) => (candidate === record ? { ...record, invite } : candidate));
  });
  return { code, expires_at: expiresAt.toISOString() };
}

/**
 * Spends a sign-in link's code: the active token it signs in as, or null (unknown, spent,
 * expired, its token revoked). The code is taken off the record whatever follows, so it works
 * once even across a restart.
 */
export async function redeemInvite(
  dataDir: DataFileAccess,
  code: string,
  now: Date,
): Promise<AdminTokenRecord | null> {
  const hash = hashAdminToken(code);
  // A wrong code (the back-off counts them) writes nothing.
  if (!(await dataDir.read(adminTokensFile)).some((record) => record.invite?.hash === hash)) return null;
  let found: AdminTokenRecord | null = null;
  await dataDir.update(adminTokensFile, (records) => {
    const record = records.find((candidate) => candidate.invite?.hash === hash);
    if (record === undefined) return records;
    const live = record.revokedAt === null && (record.invite?.expiresAt.getTime() ?? 0) > now.getTime();
    if (live) found = record;
    return records.map((candidate) => (candidate === record ? { ...record, invite: null } : candidate));
  });
  return found;
}
