/**
 * The admin API's request pipeline (docs/admin.md, "How a request is handled"), one per listener.
 * Like /v1's (daemon/http/pipeline.ts) it is callable in-process, `handle(request) → response`,
 * and node:http is only its adapter; it shares /v1's envelope, error catalogue, body reading,
 * validation and idempotency. The order:
 *
 *   TCP only: Host (421) → preflight refused (403) → the panel's files and sign-in
 *             (panel/panel-gate.ts) → token back-off (429) → token or session cookie (401)
 *   both:     cross-origin write (403) → route (404) → body: 415, 413, 400 → validation (400)
 *             → Idempotency-Key (POST) → handler → audit (every write, with its actor)
 *
 * (The route is looked up before the origin check, after authentication, only so that the audit
 * line of a refused cross-origin write names its route; an unknown path is still refused 403 then.)
 *
 * On admin.sock the file's permission is the authentication and no browser can connect, so the
 * Host and token stages do not apply there; the origin, preflight and JSON rules do (they cost
 * nothing, and the socket may one day be proxied).
 */
import type { Logger } from '../log/log.ts';
import type { HostPort } from '../host-port.ts';
import { ApiError } from '../http/api-error.ts';
import { StoreError } from '../store/errors.ts';
import { Router } from '../http/router.ts';
import { baseHeaders, errorResponse, json, newRequestId } from '../http/respond.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonBody, validateInput } from '../http/stages/input.ts';
import { requestTarget } from '../http/stages/target.ts';
import { type ApiRequest, type ApiResponse, ClientGone } from '../http/types.ts';
import { type Admission, type Idempotency, unkeyedAdmission } from '../idempotency/idempotency.ts';
import { ADMIN_PREFIX, type AdminActor, type AnyAdminRoute } from './define-admin-route.ts';
import { checkHost, checkOrigin, hostRule, ownOriginOf, refusePreflight, type HostRule } from './defences.ts';
import { auditAdminRequest, logAdminRequest } from './admin-observers.ts';
import { withoutShownOnce } from './shown-once.ts';
import type { AdminServices } from './services.ts';
import { TokenBackoff, tokenCredential, type TokenBackoffPolicy } from './token-backoff.ts';
import { PANEL_SECURITY_HEADERS } from './panel/panel-assets.ts';
import type { PanelGate } from './panel/panel-gate.ts';

/** Where a pipeline's requests come from. */
export type AdminTransport =
  | { kind: 'socket'; uid: number }
  | { kind: 'tcp'; listen: HostPort; tls: boolean; hostnames: readonly string[] };

export interface AdminPipelineOptions {
  routes: readonly AnyAdminRoute[];
  services: AdminServices;
  transport: AdminTransport;
  log: Logger;
  /** Idempotency-Key on POSTs; without it every POST runs as new. */
  idempotency?: Idempotency;
  bodyLimitBytes?: number;
  backoff?: Partial<TokenBackoffPolicy>;
  /** The panel's files, sign-in and session cookies (the TCP listener only). */
  panel?: (pipeline: { backoff: TokenBackoff; bodyLimitBytes: number }) => PanelGate;
  /** GET /admin/v1/openapi.json, built on its first request. */
  openapi?: () => unknown;
  now?: () => number;
}

export const ADMIN_OPENAPI_PATH = `${ADMIN_PREFIX}/openapi.json`;

export type AdminHandle = (req: ApiRequest) => Promise<ApiResponse>;

/** What one request learned on its way: for the answer, the log line and the audit entry. */
export interface AdminExchange {
  requestId: string;
  headers: Record<string, string>;
  route: AnyAdminRoute | null;
  actor: AdminActor | null;
  errorCode: string | null;
}

const BEARER = /^Bearer +(\S+) *$/i;

export function createAdminPipeline(options: AdminPipelineOptions): AdminHandle {
  const router = new Router(options.routes);
  const { services, transport, log } = options;
  const backoff = new TokenBackoff(options.backoff, options.now);
  const hosts: HostRule | null =
    transport.kind === 'tcp' ? hostRule(transport.listen, transport.hostnames, transport.tls) : null;
  const tls = transport.kind === 'tcp' && transport.tls;
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const panel =
    transport.kind === 'tcp' ? options.panel?.({ backoff, bodyLimitBytes: bodyLimit }) : undefined;
  let openapiBody: Buffer | null = null;

  /**
   * admin.sock: its permission; TCP: a Bearer admin token, or without one the panel's session
   * cookie. A request with neither (a browser opening the panel before signing in, or holding a
   * session the daemon no longer has, whose cookie the answer clears) is refused without counting
   * as a guess: a cookie is 256 random bits, nothing to guess, and a live session is never held
   * back by others' bad tries. Bad tokens are backed off per address and token id (token-backoff.ts).
   */
  function authenticate(req: ApiRequest): { actor: AdminActor; sessionId: string | null } {
    if (transport.kind === 'socket') return { actor: { kind: 'local', uid: transport.uid }, sessionId: null };
    const authorization = req.headers['authorization'];
    if (authorization === undefined) {
      const signedIn = panel?.actorOf(req);
      if (signedIn) return { actor: signedIn.actor, sessionId: signedIn.session.id };
      throw unauthorized(req);
    }
    const text = BEARER.exec(authorization)?.[1] ?? '';
    const credential = tokenCredential(text);
    backoff.check(req.remoteAddress, credential);
    const record = services.tokens.verify(text);
    if (record === null) {
      backoff.failed(req.remoteAddress, credential);
      throw unauthorized(req);
    }
    backoff.succeeded(req.remoteAddress, credential);
    return { actor: { kind: 'token', token_id: record.id, name: record.name }, sessionId: null };
  }

  function unauthorized(req: ApiRequest): ApiError {
    return new ApiError('unauthorized', 'Send an admin token as "Authorization: Bearer mgadm_…".', {
      headers: { 'www-authenticate': 'Bearer realm="modgate-admin"', ...panel?.staleCookieHeaders(req) },
    });
  }

  async function run(req: ApiRequest, exchange: AdminExchange): Promise<ApiResponse> {
    const url = requestTarget(req.url);
    if (hosts) checkHost(req, hosts);
    refusePreflight(req);
    const early = panel ? await panel.answer(req, url, exchange) : null;
    if (early) {
      // Sign-in is a declared route too (for the audit log's route and the OpenAPI document).
      exchange.route = router.match(req.method, url.pathname)?.route ?? null;
      return early;
    }
    const { actor, sessionId } = authenticate(req);
    exchange.actor = actor;
    if (req.method === 'GET' && url.pathname === ADMIN_OPENAPI_PATH && options.openapi) {
      openapiBody ??= Buffer.from(JSON.stringify(options.openapi()));
      const headers = { ...exchange.headers, 'content-type': 'application/json; charset=utf-8' };
      return { status: 200, headers: { ...headers, 'cache-control': 'no-store' }, body: openapiBody };
    }
    const match = router.match(req.method, url.pathname);
    exchange.route = match?.route ?? null;
    checkOrigin(req, ownOriginOf(req, tls));
    if (!match) throw new ApiError('not_found', 'No such admin endpoint.');
    const { route } = match;
    const rawBody = route.body || req.hasBody ? await readJsonBody(req, route, bodyLimit) : undefined;
    const input = validateInput(route, match.params, url, rawBody);
    const context = {
      params: input.params,
      query: input.query,
      body: input.body,
      actor,
      sessionId,
      requestId: exchange.requestId,
      headers: req.headers,
      admin: services,
      responseHeaders: {} as Record<string, string>,
    };
    if (route.stream) {
      const headers = {
        ...exchange.headers,
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
      };
      return { status: 200, headers, body: null, stream: route.stream({ ...context, body: undefined }) };
    }
    const admission = await admit(options.idempotency, route, actor, req, url.pathname, input.body);
    if (admission.kind === 'replay') {
      return { ...admission.response, headers: { ...exchange.headers, ...admission.response.headers } };
    }
    let response: ApiResponse;
    try {
      const result: unknown = await route.handler(context);
      response = answer(route, result, { ...exchange.headers, ...context.responseHeaders });
    } catch (error) {
      if (error instanceof StoreError) {
        // A data file that cannot be read or written (broken by hand, loose permissions): the
        // operator's to fix, and then the same request may be sent again, so nothing is kept.
        admission.abandon();
        const refused = new ApiError('conflict', `The data dir cannot take this change: ${error.message}`);
        exchange.errorCode = refused.code;
        return errorResponse(refused, exchange.requestId, exchange.headers);
      }
      if (!(error instanceof ApiError)) {
        admission.abandon();
        throw error;
      }
      exchange.errorCode = error.code;
      response = errorResponse(error, exchange.requestId, exchange.headers);
    }
    await admission.complete(route.shownOnce ? withoutShownOnce(response, route.shownOnce) : response);
    return response;
  }

  return async function handleAdmin(req: ApiRequest): Promise<ApiResponse> {
    const started = performance.now();
    const requestId = newRequestId();
    const exchange: AdminExchange = {
      requestId,
      // The panel's security headers on every TCP answer: a browser may be reading any of them.
      headers: {
        ...baseHeaders(requestId),
        'cache-control': 'no-store',
        ...(panel ? PANEL_SECURITY_HEADERS : {}),
      },
      route: null,
      actor: null,
      errorCode: null,
    };
    let response: ApiResponse;
    try {
      response = await run(req, exchange);
    } catch (thrown) {
      if (thrown instanceof ClientGone) response = { status: thrown.status, headers: {}, body: null };
      else {
        const error = thrown instanceof ApiError ? thrown : unhandled(thrown, requestId, log);
        exchange.errorCode = error.code;
        response = errorResponse(error, requestId, exchange.headers);
      }
    }
    auditAdminRequest(services.audit, req, exchange, response, log);
    logAdminRequest(log, req, exchange, response, performance.now() - started);
    return response;
  };
}

function answer(route: AnyAdminRoute, result: unknown, headers: Record<string, string>): ApiResponse {
  if (route.response.status === 204 || route.response.schema === undefined) {
    return { status: route.response.status, headers, body: null };
  }
  return json(route.response.status, result, headers);
}

function unhandled(thrown: unknown, requestId: string, log: Logger): ApiError {
  log.error('unhandled error', { request_id: requestId, error: thrown });
  return new ApiError('internal');
}

/** Idempotency-Key on POSTs, keyed by the actor as /v1 keys it by the API key (docs/idempotency.md). */
async function admit(
  idempotency: Idempotency | undefined,
  route: AnyAdminRoute,
  actor: AdminActor,
  req: ApiRequest,
  path: string,
  body: unknown,
): Promise<Admission> {
  const header = route.method === 'POST' ? req.headers['idempotency-key'] : undefined;
  if (!idempotency || header === undefined) return unkeyedAdmission();
  const keyId = `admin:${actorId(actor)}`;
  return idempotency.admit({ keyId, method: route.method, route: route.path, path, body, header });
}

/** `local:1000`, `token:abc…`: the actor as one string (idempotency records, the log). */
export function actorId(actor: AdminActor): string {
  return actor.kind === 'local' ? `local:${actor.uid}` : `${actor.kind}:${actor.token_id}`;
}
