/**
 * What the admin TCP listener answers before authentication, for the panel (docs/admin.md,
 * "The panel"): the panel's files, and sign-in (`POST /admin/v1/session` with an admin token or a
 * one-time code, answered with the session cookie). And the other half of sessions: the actor
 * a request's session cookie stands for, checked on every request against the admin tokens, so
 * a session ends the moment its token is revoked.
 *
 * Sign-in passes the listener's defences like any write (the pipeline checks Host and refuses
 * preflights before this runs; the cross-origin check and the JSON body rule are applied here),
 * and a wrong token or code counts towards the bad-token back-off as a wrong Bearer token does.
 */
import * as z from 'zod';
import { ApiError } from '../../http/api-error.ts';
import { json } from '../../http/respond.ts';
import { readJsonBody, validateInput } from '../../http/stages/input.ts';
import type { RequestTarget } from '../../http/stages/target.ts';
import type { ApiRequest, ApiResponse } from '../../http/types.ts';
import type { AdminActor } from '../admin-actor.ts';
import type { AdminRole } from '../roles.ts';
import { ADMIN_ROLES } from '../roles.ts';
import type { AdminExchange } from '../admin-exchange.ts';
import { checkOrigin, ownOriginOf } from '../stages/defences.ts';
import { CODE_CREDENTIAL, tokenCredential, type TokenBackoff } from '../stages/token-backoff.ts';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from '../session-cookie.ts';
import type { Session, SessionOwner, SessionStore } from '../sessions.ts';
import { PanelAssets } from './panel-assets.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

export const SESSION_PATH = '/admin/v1/session';

/** POST /admin/v1/session's body: exactly one of a token or a code, each bounded. */
export const SignInBody = lazySchema(() =>
  z
    .object({
      token: z.string().min(1).max(200).optional().describe('An admin token, mgadm_…'),
      code: z.string().min(1).max(200).optional().describe('A one-time code from a login link'),
    })
    .strict()
    .refine((body) => (body.token === undefined) !== (body.code === undefined), {
      message: 'send exactly one of token and code',
    })
    .meta({ id: 'AdminSignIn' }),
);

/** What GET and POST /admin/v1/session answer. */
export const SessionView = lazySchema(() =>
  z
    .object({
      token_id: z.string().nullable().describe('The admin token the session acts for; null for a login link'),
      name: z.string(),
      role: z
        .enum(ADMIN_ROLES)
        .describe('What this session may do (docs/admin.md, "Roles"): the panel shows its pages'),
      expires_at: z.iso.datetime({ offset: true }).nullable().describe('Null for a Bearer token'),
    })
    .meta({ id: 'AdminSession' }),
);

export interface PanelGateOptions {
  sessions: SessionStore;
  tls: boolean;
  backoff: TokenBackoff;
  bodyLimitBytes: number;
  /** The active admin token `text` is, or null. */
  verifyToken(text: string): { id: string; name: string; role: AdminRole } | null;
  /** Spends a staff member's sign-in link (admin-tokens.json): the token it signs in as, or null. */
  redeemInvite(code: string): Promise<{ id: string; name: string; role: AdminRole } | null>;
  /** Whether the admin token with this id is still active. */
  tokenActive(id: string): boolean;
  /** The panel's files (panel-assets.ts), built with the route tables the caller holds. */
  assets: PanelAssets;
}

export class PanelGate {
  readonly #options: PanelGateOptions;
  readonly #assets: PanelAssets;

  constructor(options: PanelGateOptions) {
    this.#options = options;
    this.#assets = options.assets;
  }

  /**
   * The answer to a panel file or a sign-in, or null when the request is neither and goes on
   * through the pipeline. A sign-in records its actor in `exchange`, for the audit log.
   */
  async answer(req: ApiRequest, url: RequestTarget, exchange: AdminExchange): Promise<ApiResponse | null> {
    if (PanelAssets.serves(req.method, url.pathname)) return this.#assets.answer(req, url.pathname);
    if (req.method === 'POST' && url.pathname === SESSION_PATH) return this.#signIn(req, url, exchange);
    return null;
  }

  /** The session actor of the request's cookie, or null (no cookie, unknown, expired, token revoked). */
  actorOf(req: ApiRequest): { actor: AdminActor; session: Session } | null {
    const secret = readSessionCookie(req.headers['cookie'], this.#options.tls);
    if (secret === undefined) return null;
    const session = this.#options.sessions.find(secret);
    if (session === undefined) return null;
    if (session.token_id !== null && !this.#options.tokenActive(session.token_id)) {
      this.#options.sessions.end(secret);
      return null;
    }
    return { actor: sessionActor(session), session };
  }

  /** A Set-Cookie that clears the session cookie, when the request sent one (that did not hold). */
  staleCookieHeaders(req: ApiRequest): Record<string, string> {
    if (readSessionCookie(req.headers['cookie'], this.#options.tls) === undefined) return {};
    return { 'set-cookie': clearedSessionCookie(this.#options.tls) };
  }

  async #signIn(req: ApiRequest, url: RequestTarget, exchange: AdminExchange): Promise<ApiResponse> {
    const { backoff, sessions, tls } = this.#options;
    checkOrigin(req, ownOriginOf(req, tls));
    const route = { body: SignInBody() };
    const raw = await readJsonBody(req, route, this.#options.bodyLimitBytes);
    const body = validateInput(route, {}, url, raw).body as z.output<ReturnType<typeof SignInBody>>;
    const credential = body.code !== undefined ? CODE_CREDENTIAL : tokenCredential(body.token ?? '');
    const owner = await backoff.attemptAsync(req.remoteAddress, credential, () => this.#ownerOf(body));
    if (owner === null) {
      throw new ApiError(
        'unauthorized',
        'That admin token or sign-in code is not valid (a code works once).',
      );
    }
    const { secret, session } = sessions.create(owner);
    // In admin-sessions.json before the browser holds the cookie, so a restart keeps it.
    await sessions.saved();
    exchange.actor = sessionActor(session);
    const cookie = sessionCookie(secret, sessions.options.ttlMs, tls);
    return json(201, sessionView(session), { ...exchange.headers, 'set-cookie': cookie });
  }

  /**
   * A code is the host's login link (in memory, 5 minutes) or else a staff member's sign-in link
   * (on disk, so it outlives a restart); a token signs in as itself.
   */
  async #ownerOf(body: z.output<ReturnType<typeof SignInBody>>): Promise<SessionOwner | null> {
    if (body.code !== undefined) {
      const link = this.#options.sessions.redeemCode(body.code);
      if (link !== undefined) return link;
      const invited = await this.#options.redeemInvite(body.code);
      return invited === null ? null : { token_id: invited.id, name: invited.name, role: invited.role };
    }
    const token = this.#options.verifyToken(body.token ?? '');
    return token === null ? null : { token_id: token.id, name: token.name, role: token.role };
  }
}

/**
 * The audit log's actor for a session: its token's id and name, or for a login link's session
 * `link-` and the session's short id, so two link sessions are two actors.
 */
export function sessionActor(session: Session): AdminActor {
  return { kind: 'session', token_id: session.token_id ?? `link-${session.id}`, name: session.name };
}

export function sessionView(
  session: Pick<Session, 'token_id' | 'name' | 'role'> & { expires_at: Date | null },
) {
  return {
    token_id: session.token_id,
    name: session.name,
    role: session.role,
    expires_at: session.expires_at?.toISOString() ?? null,
  };
}
