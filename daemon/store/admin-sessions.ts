/**
 * admin-sessions.json: the panel's signed-in sessions, so a daemon restart signs no one out
 * (docs/admin.md, "The panel"). Written by the daemon alone (daemon/admin/sessions.ts) when a
 * session starts or ends; absent until the first sign-in. A record holds the SHA-256 of the
 * session's secret, never the secret (the cookie's value), so the file signs no one in.
 */
import * as z from 'zod';
import { ADMIN_ROLES, type AdminRole } from '../admin/roles.ts';
import { ADMIN_FILES } from './data-dir-layout.ts';
import { dateField, defineDataFile } from './data-file.ts';

/** The most `[admin] max_sessions` allows: a longer file is refused as broken. */
export const MAX_STORED_SESSIONS = 100_000;

export interface StoredSession {
  /** Hex SHA-256 of the session's secret. */
  readonly hash: string;
  /** The admin token it was made from; null for a one-time login link's session. */
  readonly tokenId: string | null;
  readonly name: string;
  readonly role: AdminRole;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

const recordSchema = z
  .object({
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a hex SHA-256'),
    token_id: z.string().min(1).max(100).nullable(),
    name: z.string().min(1).max(200),
    role: z.enum(ADMIN_ROLES),
    created_at: dateField,
    expires_at: dateField,
  })
  .strict()
  .transform((file): StoredSession => ({
    hash: file.hash,
    tokenId: file.token_id,
    name: file.name,
    role: file.role,
    createdAt: file.created_at,
    expiresAt: file.expires_at,
  }));

export const adminSessionsFile = defineDataFile<readonly StoredSession[]>({
  name: ADMIN_FILES.sessions,
  schema: z
    .object({ sessions: z.array(recordSchema).max(MAX_STORED_SESSIONS) })
    .transform((file): readonly StoredSession[] => file.sessions),
  serialize: (records) => ({
    sessions: records.map((record) => ({
      hash: record.hash,
      token_id: record.tokenId,
      name: record.name,
      role: record.role,
      created_at: record.createdAt.toISOString(),
      expires_at: record.expiresAt.toISOString(),
    })),
  }),
  whenMissing: [],
});
