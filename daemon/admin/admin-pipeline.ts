/**
 * The admin API's request pipeline (docs/admin.md, "How a request is handled"), one per listener.
 * It is a plane of the one skeleton /v1 runs too (daemon/http/plane.ts): callable in-process,
 * `handle(request) → response`, node:http only its adapter, and /v1's envelope, error catalogue,
 * body reading, validation and idempotency stage. `run()` below is its stages, in this order:
 *
 *   TCP only: Host (421) → preflight refused (403) → the panel's files and sign-in
 *             (panel/panel-gate.ts) → token back-off (429) → token or session cookie (401)
 *   both:     cross-origin write (403) → route (404) → role (403 forbidden) → body: 415, 413,
 *             400 → validation (400)
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
import { failure } from '../http/stages/answers.ts';
import { handleOf } from '../http/plane.ts';
import { json } from '../http/respond.ts';
import { Router } from '../http/router.ts';
import { admit } from '../http/stages/admission.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonBody, validateInput } from '../http/stages/input.ts';
import { requestTarget } from '../http/stages/target.ts';
import type { ApiRequest, ApiResponse } from '../http/types.ts';
import type { Admission, Idempotency } from '../idempotency/idempotency.ts';
import { StoreError } from '../store/errors.ts';
import { actorId } from './admin-actor.ts';
import { AdminAuthentication } from './stages/admin-authentication.ts';
import { type AdminExchange, newAdminExchange } from './admin-exchange.ts';
import { adminObservers } from './admin-observers.ts';
import { ADMIN_PREFIX, type AdminContext, type AnyAdminRoute } from './define-admin-route.ts';
import { checkRole } from './stages/role-check.ts';
import { checkHost, checkOrigin, hostRule, ownOriginOf, refusePreflight } from './stages/defences.ts';
import type { PanelGate } from './panel/panel-gate.ts';
import type { AdminServices } from './services.ts';
import { withoutShownOnce } from './shown-once.ts';
import { TokenBackoff, type TokenBackoffPolicy } from './stages/token-backoff.ts';

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

/** The methods an Idempotency-Key applies to on the admin API (docs/idempotency.md). */
const ADMIN_WRITES: ReadonlySet<string> = new Set(['POST']);

export function createAdminPipeline(options: AdminPipelineOptions): AdminHandle {
  const router = new Router(options.routes);
  const { services, transport, log } = options;
  const backoff = new TokenBackoff(options.backoff, options.now);
  const tcp = transport.kind === 'tcp' ? transport : null;
  const hosts = tcp && hostRule(tcp.listen, tcp.hostnames, tcp.tls);
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const panel = tcp ? options.panel?.({ backoff, bodyLimitBytes: bodyLimit }) : undefined;
  const auth = new AdminAuthentication(
    transport.kind === 'socket' ? transport.uid : null,
    services,
    backoff,
    panel,
  );
  const openapi = lazyOpenapi(options.openapi);

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
    const who = auth.authenticate(req);
    exchange.actor = who.actor;
    if (openapi && req.method === 'GET' && url.pathname === ADMIN_OPENAPI_PATH) return openapi(exchange);
    const match = router.match(req.method, url.pathname);
    exchange.route = match?.route ?? null;
    checkOrigin(req, ownOriginOf(req, tcp?.tls ?? false));
    if (!match) throw new ApiError('not_found', 'No such admin endpoint.');
    const { route } = match;
    checkRole(route, who.role);
    const rawBody = route.body || req.hasBody ? await readJsonBody(req, route, bodyLimit) : undefined;
    const input = validateInput(route, match.params, url, rawBody);
    const context: HandlerContext = {
      ...input,
      ...who,
      requestId: exchange.requestId,
      headers: req.headers,
      admin: services,
      responseHeaders: {},
      opIdBase: null,
    };
    if (route.stream) return streamed(route, context, exchange);
    const keyId = `admin:${actorId(who.actor)}`;
    const admission = await admit(
      options.idempotency,
      ADMIN_WRITES,
      route,
      keyId,
      req,
      url.pathname,
      input.body,
    );
    if (admission.kind === 'replay') {
      return { ...admission.response, headers: { ...exchange.headers, ...admission.response.headers } };
    }
    return handled(route, { ...context, opIdBase: admission.opIdBase }, admission, exchange);
  }

  return handleOf({
    exchange: () => newAdminExchange(panel !== undefined),
    run,
    observe: adminObservers(services, log),
    log,
  });
}

type HandlerContext = AdminContext<unknown, unknown, unknown> & { responseHeaders: Record<string, string> };

/** A route that declares a stream answers with it: the held SSE stream (admin-event-streams.ts). */
function streamed(route: AnyAdminRoute, context: HandlerContext, exchange: AdminExchange): ApiResponse {
  const headers = { ...exchange.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store' };
  return { status: 200, headers, body: null, stream: route.stream?.({ ...context, body: undefined }) };
}

/**
 * The handler and its answer, inside the idempotency section: a route's ApiError is answered
 * (and kept for replay) here, anything else abandons the admission and goes to the skeleton.
 */
async function handled(
  route: AnyAdminRoute,
  context: HandlerContext,
  admission: Extract<Admission, { kind: 'run' }>,
  exchange: AdminExchange,
): Promise<ApiResponse> {
  let response: ApiResponse;
  try {
    const result: unknown = await route.handler(context);
    response = answer(route, result, { ...exchange.headers, ...context.responseHeaders });
  } catch (error) {
    if (error instanceof StoreError) {
      // A data file that cannot be read or written (broken by hand, loose permissions): the
      // operator's to fix, and then the same request may be sent again, so nothing is kept.
      admission.abandon();
      // The StoreError's message names the file and its fix; a write adds that it did not happen.
      const message =
        route.method === 'GET' ? error.message : `The data dir cannot take this change: ${error.message}`;
      return failure(new ApiError('conflict', message), exchange);
    }
    if (!(error instanceof ApiError)) {
      admission.abandon();
      throw error;
    }
    response = failure(aboutResource(route, context.params, error), exchange);
  }
  await admission.complete(route.shownOnce ? withoutShownOnce(response, route.shownOnce) : response);
  return response;
}

/** A not_found or conflict of a route that declares its resource, its details naming it and the id. */
function aboutResource(route: AnyAdminRoute, params: unknown, error: ApiError): ApiError {
  if (route.resource === undefined || (error.code !== 'not_found' && error.code !== 'conflict')) return error;
  const id = (params as { id?: unknown } | undefined)?.id;
  const details = { ...error.details, resource: route.resource, ...(typeof id === 'string' ? { id } : {}) };
  return new ApiError(error.code, error.message, { details, headers: error.headers, status: error.status });
}

function answer(route: AnyAdminRoute, result: unknown, headers: Record<string, string>): ApiResponse {
  if (route.response.status === 204 || route.response.schema === undefined) {
    return { status: route.response.status, headers, body: null };
  }
  return json(route.response.status, result, headers);
}

/** GET /admin/v1/openapi.json: the document built on its first request, then served as kept. */
function lazyOpenapi(build: (() => unknown) | undefined): ((exchange: AdminExchange) => ApiResponse) | null {
  if (!build) return null;
  let body: Buffer | null = null;
  return (exchange) => {
    body ??= Buffer.from(JSON.stringify(build()));
    const headers = { ...exchange.headers, 'content-type': 'application/json; charset=utf-8' };
    return { status: 200, headers: { ...headers, 'cache-control': 'no-store' }, body };
  };
}
