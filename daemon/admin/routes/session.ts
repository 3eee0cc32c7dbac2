/**
 * The panel's sessions as admin resources (docs/admin.md, "The panel"):
 * - `POST /admin/v1/session`: sign in on the TCP listener. The panel gate
 *   (panel/panel-gate.ts) answers it before authentication, since it is how a browser
 *   authenticates; declared here for the OpenAPI document. It reaches this handler only on
 *   admin.sock, where a session means nothing: 404.
 * - `GET /admin/v1/session`: who the request is signed in as.
 * - `DELETE /admin/v1/session`: sign out (the cookie is cleared).
 * - `POST /admin/v1/login-codes`: a one-time sign-in code and its link, for
 *   `modgate admin login-url`; admin.sock only (404 on TCP), since whoever can reach the socket is
 *   the operator. Each endpoint that belongs to one transport is a 404 on the other.
 */
import * as z from 'zod';
import { ApiError } from '../../http/api-error.ts';
import { defineAdminRoute } from '../define-admin-route.ts';
import { SESSION_PATH, SessionView, SignInBody, sessionView } from '../panel/panel-gate.ts';
import { clearedSessionCookie, readSessionCookie } from '../session-cookie.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

/**
 * A one-time sign-in code as POST /admin/v1/login-codes answers it, and a staff member's sign-in
 * link as /admin/v1/tokens does (docs/admin.md, "Staff sign-in"); the CLI checks answers against it.
 */
export const LoginCode = lazySchema(() =>
  z
    .object({
      code: z
        .string()
        .describe('Spent by its first use; only its hash is kept (a staff link in admin-tokens.json)'),
      url: z
        .string()
        .nullable()
        .describe(
          'The panel link that signs in with it (`http://HOST:PORT/login#CODE`); null with no admin TCP listener',
        ),
      expires_at: z.iso.datetime({ offset: true }),
    })
    .meta({ id: 'AdminLoginCode' }),
);

export const sessionRoutes = [
  defineAdminRoute({
    method: 'POST',
    path: SESSION_PATH,
    operationId: 'createAdminSession',
    summary: 'Sign in to the panel with an admin token or a one-time code (TCP listener)',
    description:
      'Answers 201 with the session and a `Set-Cookie` of the session cookie (HttpOnly, SameSite=Strict, ' +
      'Secure under TLS). A wrong, revoked, used or expired token or code is 401 and counts towards the ' +
      'bad-token back-off. Not on admin.sock (404).',
    tag: 'Sessions',
    access: { kind: 'staff' },
    body: SignInBody,
    response: { status: 201, schema: SessionView },
    errors: ['unauthorized', 'rate_limited'],
    handler: () => Promise.reject(new ApiError('not_found', 'Sessions are for the admin TCP listener.')),
  }),
  defineAdminRoute({
    method: 'GET',
    path: SESSION_PATH,
    operationId: 'getAdminSession',
    summary: 'Who this request is signed in as',
    tag: 'Sessions',
    access: { kind: 'staff' },
    response: { status: 200, schema: SessionView },
    errors: [],
    handler: ({ actor, role, headers, admin }) => {
      if (actor.kind === 'local')
        return Promise.resolve({ token_id: null, name: `uid ${actor.uid}`, role, expires_at: null });
      const secret =
        actor.kind === 'session' ? readSessionCookie(headers['cookie'], admin.panel.tls) : undefined;
      const session = secret === undefined ? undefined : admin.panel.sessions.find(secret);
      if (session) return Promise.resolve(sessionView(session));
      return Promise.resolve({ token_id: actor.token_id, name: actor.name, role, expires_at: null });
    },
  }),
  defineAdminRoute({
    method: 'GET',
    path: `${SESSION_PATH}/watch`,
    operationId: 'watchAdminSession',
    summary: 'Server-Sent Events that end with a 401 error message the moment this session or its token ends',
    description:
      'No events, only heartbeats: an open panel page holds it to learn at once that it was signed out, its token revoked or its session expired, without polling. Takes no slot of the event stream caps.',
    tag: 'Sessions',
    access: { kind: 'staff' },
    response: { status: 200 },
    errors: [],
    stream: ({ actor, sessionId, requestId, admin }) => {
      const session = sessionId === null ? null : { expiry: () => admin.panel.sessions.expiryOf(sessionId) };
      return admin.eventStreams.watch(actor, requestId, session);
    },
    handler: async () => {
      throw new Error('GET /admin/v1/session/watch always streams');
    },
  }),
  defineAdminRoute({
    method: 'DELETE',
    path: SESSION_PATH,
    operationId: 'deleteAdminSession',
    summary: 'Sign out: end the session of the cookie sent, and clear the cookie',
    tag: 'Sessions',
    access: { kind: 'staff' },
    response: { status: 204 },
    errors: [],
    handler: async ({ headers, admin, responseHeaders }) => {
      const secret = readSessionCookie(headers['cookie'], admin.panel.tls);
      if (secret !== undefined) admin.panel.sessions.end(secret);
      responseHeaders['set-cookie'] = clearedSessionCookie(admin.panel.tls);
      // Gone from admin-sessions.json too before the answer, so a restart right after cannot bring it back.
      await admin.panel.sessions.saved();
    },
  }),
  defineAdminRoute({
    method: 'POST',
    path: '/admin/v1/login-codes',
    operationId: 'createAdminLoginCode',
    summary: 'A one-time sign-in code for the panel (admin.sock only; `modgate admin login-url`)',
    tag: 'Sessions',
    access: { kind: 'owner' },
    body: () => z.object({}).strict(),
    response: { status: 201, schema: LoginCode },
    errors: [],
    handler: ({ actor, admin }) => {
      if (actor.kind !== 'local') {
        return Promise.reject(
          new ApiError('not_found', 'Login codes are minted over admin.sock only (modgate admin login-url).'),
        );
      }
      const { code, expires_at } = admin.panel.sessions.mintCode({
        token_id: null,
        name: `login link (uid ${actor.uid})`,
        role: 'owner',
      });
      const base = admin.panel.url();
      return Promise.resolve({
        code,
        url: base === null ? null : `${base}/login#${code}`,
        expires_at: expires_at.toISOString(),
      });
    },
  }),
];
