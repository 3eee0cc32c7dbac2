/**
 * GET /admin/v1/audit (docs/admin.md, "Audit log"): the audit log newest first, /v1 writes and
 * admin requests alike, across `audit.jsonl` and the copies rotation left beside it
 * (daemon/log/audit-query.ts), filtered by API key, admin actor, route, method, status and
 * time range. The collection envelope with an authenticated cursor that binds the filters and
 * keeps working when the log is rotated between two pages. Each page reads at most `limit`
 * lines, a bounded number of files and for a bounded time: a filter that matches rarely can
 * give a short (even empty) page with `has_more`, never a long request.
 */
import * as z from 'zod';
import { CursorCodec } from '../../http/cursor.ts';
import type { AuditPosition } from '../../log/audit-query.ts';
import { collection } from '../../routes/collection.ts';
import { limitParam } from '../../routes/params.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import type { AdminServices } from '../services.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

const instant = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text).toISOString())
  .optional();

const AuditQuery = lazySchema(() =>
  z
    .object({
      key_id: z.string().max(64).optional().describe('Only /v1 writes made with this API key'),
      actor: z
        .string()
        .regex(/^(local|token|session)(:[A-Za-z0-9_-]{1,64})?$/, 'local, token or session, optionally :ID')
        .optional()
        .describe(
          'Only admin requests by this actor: local, local:UID, token, token:ID, session, session:ID',
        ),
      route: z
        .string()
        .max(200)
        .regex(/^\//, 'a route template such as /v1/players/{ref}/ban')
        .optional()
        .describe(
          'Only this route template (/v1/players/{ref}/ban, /admin/v1/keys/{id}) or concrete path (/admin/v1/keys/k3v9q2m7x1pa)',
        ),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
      status: z
        .string()
        .regex(/^([1-5][0-9]{2}|[1-5]xx)$/, 'a status such as 404, or a class such as 4xx')
        .optional()
        .describe('A status (404) or a class (4xx)'),
      since: instant.describe('Only lines at or after this instant (ISO 8601)'),
      until: instant.describe('Only lines at or before this instant (ISO 8601)'),
      limit: limitParam(1, 200, 50),
      cursor: z.string().max(1_000).optional().describe('next_cursor from the previous page'),
    })
    .strict(),
);

const Actor = lazySchema(() =>
  z
    .object({
      kind: z.enum(['local', 'token', 'session']),
      uid: z.number().int().optional().describe('local: the uid admin.sock belongs to'),
      token_id: z.string().optional(),
      name: z.string().optional(),
    })
    .meta({ id: 'AdminAuditActor' }),
);

const AuditLine = lazySchema(() =>
  z
    .object({
      time: z.string(),
      request_id: z.string(),
      key_id: z.string().nullable().describe('The API key of a /v1 write; null for an admin request'),
      actor: Actor().optional().describe('Admin requests: who made it'),
      method: z.string(),
      route: z.string().describe('The route template'),
      target: z.string().describe('The concrete path'),
      status: z.number().int(),
      outcome: z.enum(['ok', 'error', 'aborted']),
      error_code: z.string().nullable(),
      replayed: z.boolean(),
    })
    .catchall(z.unknown())
    .meta({ id: 'AdminAuditLine' }),
);

/** One codec per daemon secret: the key derivation runs once, not per request (every paged admin list). */
const codecs = new WeakMap<Uint8Array, CursorCodec>();

export function codecOf(admin: AdminServices): CursorCodec {
  const secret = admin.snapshot().identity.daemonSecretKey;
  let codec = codecs.get(secret);
  if (!codec) codecs.set(secret, (codec = new CursorCodec(secret)));
  return codec;
}

const CURSOR_SCOPE = { keyId: 'admin', route: 'listAdminAudit' };

function decodePosition(text: string): AuditPosition {
  const [head = '', offset = ''] = text.split('@');
  return { head, offset: offset === '' ? null : Number(offset) };
}

export const auditRoutes = [
  defineAdminRoute({
    method: 'GET',
    path: '/admin/v1/audit',
    operationId: 'listAdminAudit',
    summary: 'The audit log, newest first, filtered, across rotated files',
    tag: 'Audit',
    access: { kind: 'owner' },
    query: AuditQuery,
    response: { status: 200, schema: () => collection(AuditLine(), false, 'AdminAuditPage') },
    errors: [],
    handler: async ({ query, admin }) => {
      const { cursor, limit, ...filters } = query;
      const scope = { ...CURSOR_SCOPE, filters };
      const codec = codecOf(admin);
      const after = cursor === undefined ? null : decodePosition(codec.decode(scope, cursor));
      const page = await admin.auditPages(
        {
          keyId: filters.key_id,
          actor: filters.actor,
          route: filters.route,
          method: filters.method,
          status: filters.status,
          since: filters.since,
          until: filters.until,
        },
        after,
        limit,
      );
      const next =
        page.next === null ? null : codec.encode(scope, `${page.next.head}@${page.next.offset ?? ''}`);
      // A line some other hand wrote into the file that is not an audit line is left out.
      const data = page.entries.flatMap((line) => {
        const parsed = AuditLine().safeParse(line);
        return parsed.success ? [parsed.data] : [];
      });
      return { data, has_more: next !== null, next_cursor: next };
    },
  }),
];
