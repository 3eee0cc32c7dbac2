/**
 * The admin plane's authentication stage (docs/admin.md, "How a request is handled"): who a
 * request is. admin.sock: its permission; TCP: a Bearer admin token, backed off per address and
 * token id after bad tries (token-backoff.ts), or without one the panel's session cookie
 * (daemon/admin/panel/panel-gate.ts).
 */
import { ApiError } from '../../http/api-error.ts';
import type { ApiRequest } from '../../http/types.ts';
import type { AdminActor } from '../admin-actor.ts';
import type { AdminRole } from '../roles.ts';
import type { PanelGate } from '../panel/panel-gate.ts';
import type { AdminServices } from '../services.ts';
import { type TokenBackoff, tokenCredential } from './token-backoff.ts';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Who made the request, the role it acts with (the role stage's input, stages/role-check.ts),
 * and the panel session it came with (null for a token or the socket).
 */
export interface Authenticated {
  actor: AdminActor;
  role: AdminRole;
  sessionId: string | null;
}

export class AdminAuthentication {
  readonly #socketUid: number | null;
  readonly #services: Pick<AdminServices, 'tokens'>;
  readonly #backoff: TokenBackoff;
  readonly #panel: PanelGate | undefined;

  /** `socketUid`: admin.sock's owner, on the socket's pipeline; null on the TCP listener's. */
  constructor(
    socketUid: number | null,
    services: Pick<AdminServices, 'tokens'>,
    backoff: TokenBackoff,
    panel: PanelGate | undefined,
  ) {
    this.#socketUid = socketUid;
    this.#services = services;
    this.#backoff = backoff;
    this.#panel = panel;
  }

  /**
   * A request with neither a token nor a live session (a browser opening the panel before
   * signing in, or holding a session the daemon no longer has, whose cookie the answer clears)
   * is refused without counting as a guess: a cookie is 256 random bits, nothing to guess, and a
   * live session is never held back by others' bad tries.
   */
  authenticate(req: ApiRequest): Authenticated {
    // Whoever can open the socket owns the data dir: the owner.
    if (this.#socketUid !== null) {
      return { actor: { kind: 'local', uid: this.#socketUid }, role: 'owner', sessionId: null };
    }
    const authorization = req.headers['authorization'];
    if (authorization === undefined) {
      const signedIn = this.#panel?.actorOf(req);
      if (signedIn)
        return { actor: signedIn.actor, role: signedIn.session.role, sessionId: signedIn.session.id };
      throw this.#unauthorized(req);
    }
    const text = BEARER.exec(authorization)?.[1] ?? '';
    const record = this.#backoff.attempt(req.remoteAddress, tokenCredential(text), () =>
      this.#services.tokens.verify(text),
    );
    if (record === null) throw this.#unauthorized(req);
    return {
      actor: { kind: 'token', token_id: record.id, name: record.name },
      role: record.role,
      sessionId: null,
    };
  }

  #unauthorized(req: ApiRequest): ApiError {
    return new ApiError('unauthorized', 'Send an admin token as "Authorization: Bearer mgadm_…".', {
      headers: {
        'www-authenticate': 'Bearer realm="modgate-admin"',
        ...this.#panel?.staleCookieHeaders(req),
      },
    });
  }
}
