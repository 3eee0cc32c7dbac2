/**
 * An admin route is a declaration (docs/admin.md): method, path under /admin/v1, schemas, the
 * error codes it may answer with, and what to do. The admin router, the validation of params,
 * query and body, and GET /admin/v1/openapi.json all read the same declaration, as the /v1
 * routes do with defineRoute (daemon/http/define-route.ts).
 */
import type { z } from 'zod';
import type { AnyErrorCode } from '../http/error-catalogue.ts';
import { type OperationSpec, withLazySchemas } from '../http/define-route.ts';
import type { Declared } from '../../protocol/lazy-schema.ts';
import type { ResponseStream } from '../http/types.ts';
import type { AdminActor } from './admin-actor.ts';
import type { AdminAccess, AdminRole } from './roles.ts';
import type { AdminServices } from './services.ts';

/** Every admin path starts here (docs/admin.md, "admin.sock, in detail"). */
export const ADMIN_PREFIX = '/admin/v1';

/**
 * Reserved for a later mode that serves several game servers from one daemon
 * (`/admin/v1/servers/{server_id}/…`): no route of this daemon may claim it.
 */
export const RESERVED_ADMIN_PREFIX = `${ADMIN_PREFIX}/servers`;

/** The resources whose refusals say which they are (`details.resource`, AdminRouteSpec.resource). */
export const ADMIN_RESOURCES = ['key', 'admin_token', 'webhook'] as const;
export type AdminResource = (typeof ADMIN_RESOURCES)[number];

/** What a handler is given; transport checks, authentication and validation have passed. */
export interface AdminContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  actor: AdminActor;
  /** The caller's role: admin.sock is the owner; a token or session, its token's role. */
  role: AdminRole;
  /** The short id (`Session.id`) of the panel session the request came with; null otherwise. */
  sessionId: string | null;
  requestId: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string | undefined>;
  admin: AdminServices;
  /** Headers a handler adds to its success answer (DELETE /admin/v1/session clears the cookie). */
  responseHeaders: Record<string, string>;
  /**
   * The base of the op ids of a game route's mod calls, from the request's Idempotency-Key, so
   * a retried write applies once (PROTOCOL §6.4); null without one.
   */
  opIdBase: string | null;
}

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface AdminRouteSpec<
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Schema | undefined = Schema | undefined,
> extends OperationSpec<P, Q, B> {
  // `path` is under ADMIN_PREFIX, e.g. `/admin/v1/tokens/{id}`.
  /** The success status and its body's schema (none for 204, and none for a stream). */
  response: { status: 200 | 201 | 204; schema?: R };
  /**
   * Top-level answer fields holding a secret shown once (a new key's text): never written to the
   * idempotency journal, so a replay answers null there (shown-once.ts).
   */
  shownOnce?: readonly string[];
  /** Error codes this route can answer with besides the ones every admin route can. */
  errors: readonly AnyErrorCode[];
  /**
   * What the route's records are: its handler's not_found and conflict refusals carry
   * `details.resource` and, for a path with an `{id}`, `details.id` (docs/admin.md, "How a
   * request is handled"), so a client names what was refused without reading the message.
   */
  resource?: AdminResource;
  /**
   * Which roles may call it (roles.ts, docs/admin.md "Roles"): every route says, so a new route
   * is classified when it is written, not left open by default.
   */
  access: AdminAccess;
  /**
   * Answers with a long-lived `text/event-stream` body instead of JSON (GET /admin/v1/events):
   * called after authentication and validation; throws an ApiError like a handler.
   */
  stream?(ctx: AdminContext<Out<P>, Out<Q>, undefined>): ResponseStream;
  handler(ctx: AdminContext<Out<P>, Out<Q>, Out<B>>): Promise<R extends Schema ? z.output<R> : void>;
}

/** An admin route as declared: its schemas given as built or as thunks (protocol/lazy-schema.ts). */
export interface AdminRouteDeclaration<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema | undefined,
> extends Omit<AdminRouteSpec<P, Q, B, R>, 'params' | 'query' | 'body' | 'response'> {
  params?: Declared<P>;
  query?: Declared<Q>;
  body?: Declared<B>;
  response: { status: 200 | 201 | 204; schema?: Declared<R> };
}

/** A route of any shape, as the admin router and the OpenAPI generator see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAdminRoute = AdminRouteSpec<any, any, any, any>;

export function defineAdminRoute<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema | undefined,
>(route: AdminRouteDeclaration<P, Q, B, R>): AnyAdminRoute {
  if (!route.path.startsWith(`${ADMIN_PREFIX}/`)) {
    throw new Error(`admin route ${route.path} is not under ${ADMIN_PREFIX}/`);
  }
  if (route.path === RESERVED_ADMIN_PREFIX || route.path.startsWith(`${RESERVED_ADMIN_PREFIX}/`)) {
    throw new Error(`${RESERVED_ADMIN_PREFIX} is reserved for serving several game servers`);
  }
  // Each schema is built on the route's first request, as /v1's are (withLazySchemas).
  return withLazySchemas(route) as AnyAdminRoute;
}
