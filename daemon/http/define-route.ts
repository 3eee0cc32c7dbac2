/**
 * A route is a declaration: method, path, scope, schemas, cache
 * policy and what to do. The router, validation, handler types and /openapi.json all read it.
 * Its schemas may be given as thunks, built on the first read (protocol/lazy-schema.ts).
 */
import type { z } from 'zod';
import { type Declared, schemaField } from '../../protocol/lazy-schema.ts';
import type { OpArgs, OpName, OpResult } from '../../protocol/ops/index.ts';
import type { WriteActor } from '../../protocol/ops/players.ts';
import type { FileEventLog } from '../events/event-log.ts';
import type { StreamSettings } from '../events/sse-stream.ts';
import type { WebhookService } from '../events/webhooks/webhook-service.ts';
import type { ErrorCode } from './error-catalogue.ts';
import type { ResponseStream } from './types.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import type { Scope } from '../scopes.ts';
import type { ApiKeyRecord } from '../store/keys-file.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The `actor` of a mod call, as a handler gives it. */
export type WriteActorInput = z.input<typeof WriteActor>;

/** A /v1 write is attributed to its key: its owner's identity, its name as the moderator label. */
export function keyActor(key: ApiKeyRecord): WriteActorInput {
  return { key_id: key.id, name: key.name, platform_id: key.ownerPlatformId, social_id: key.ownerSocialId };
}

/** How a successful response may be cached (docs/pipeline.md). */
export type CachePolicy =
  | { kind: 'no-store' } // live or sensitive: `Cache-Control: private, no-store`, no ETag
  | { kind: 'private'; maxAgeSec: number }; // strong ETag, 304 on If-None-Match

/** RFC 9745 Deprecation and RFC 8594 Sunset for a route being retired. */
export interface Deprecation {
  since: Date;
  sunset?: Date;
}

export interface CallOptions {
  deadlineMs?: number;
  opId?: string;
}

/** Ops whose arguments end in a keyset position: the ones `page()` serves. */
export type ListOp = {
  [N in OpName]: OpArgs<N> extends { after: string | null; limit: number } ? N : never;
}[OpName];

/** A list op's filters: its arguments without the paging. */
export type ListFilters<N extends OpName> = Omit<OpArgs<N>, 'after' | 'limit'>;

/**
 * The collection envelope (docs/pipeline.md) a list op's page becomes: the op's rows and,
 * where it has one, its total; `next` becomes `has_more` and an authenticated `next_cursor`.
 */
export type PageOf<N extends OpName> = Omit<OpResult<N>, 'next'> & {
  has_more: boolean;
  next_cursor: string | null;
};

export interface PageOptions {
  cursor: string | undefined;
  limit: number;
  /** Read-cache tags a write drops (see read()). */
  tags?: readonly string[];
}

/**
 * Parts of the daemon a handler may use besides the mod. Each is absent in a pipeline built
 * without it (most in-process tests); a handler that needs one answers 500 then.
 */
export interface RouteServices {
  events?: FileEventLog;
  webhooks?: WebhookService;
  /** Heartbeat and slow-reader limit of the SSE stream (defaults in STREAM_DEFAULTS). */
  eventStream?: Partial<StreamSettings>;
  /** Where the SSE stream reports its subscribers (docs/metrics.md); nothing when absent. */
  metrics?: Pick<DaemonMetrics, 'eventSubscribers' | 'eventStreamCut'>;
}

/** What a handler is given; everything before it (auth, scope, validation) has already passed. */
export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  key: ApiKeyRecord;
  /**
   * Who a write is attributed to on the mod link (PROTOCOL §6.6): the key on /v1 (`keyActor`),
   * the panel's admin, with source `panel`, on the admin API's game routes (docs/admin.md).
   */
  actor: WriteActorInput;
  requestId: string;
  /** Request headers, names in lower case (for If-Match). */
  headers: Record<string, string | undefined>;
  /** Calls the mod; link failures arrive as ApiErrors (503, 504, mapped op errors). */
  call<N extends OpName>(op: N, args: OpArgs<N>, options?: CallOptions): Promise<OpResult<N>>;
  /**
   * A read through the coalescing read cache (daemon/http/read-cache.ts) for the route's
   * max-age; on a no-store route it is a plain call. `tags` name what a write invalidates.
   */
  read<N extends OpName>(op: N, args: OpArgs<N>, tags?: readonly string[]): Promise<OpResult<N>>;
  /**
   * A keyset page of a list op: decodes the authenticated cursor into the op's `after`, reads
   * through the cache, and wraps the op's `next` in a new cursor bound to this key, route and
   * `filters`.
   */
  page<N extends ListOp>(op: N, filters: ListFilters<N>, options: PageOptions): Promise<PageOf<N>>;
  /** Drops cached reads carrying these tags, so a client reads its own writes. */
  invalidate(tags: readonly string[]): void;
  server: { serverId: string; name: string | null; modVersion: string | null };
  services: RouteServices;
}

/**
 * What a streaming route is given (the SSE event stream): the validated query and the caller,
 * before any handler runs. It answers with the stream, or throws an ApiError like a handler.
 */
export interface StreamContext<Q> {
  query: Q;
  key: ApiKeyRecord;
  headers: Record<string, string | undefined>;
  services: RouteServices;
}

/** A route that can also answer as a stream, chosen by the request's Accept header. */
export interface StreamSpec<Q> {
  contentType: 'text/event-stream';
  /** Request headers the stream reads, lower case, with their description (for OpenAPI). */
  headers?: Record<string, string>;
  open(ctx: StreamContext<Q>): ResponseStream;
}

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a route declares for the router and its OpenAPI operation, in /v1 and the admin API alike. */
export interface OperationSpec<P, Q, B> {
  method: HttpMethod;
  /** Path with `{name}` placeholders, e.g. `/v1/players/{ref}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Longer prose for the OpenAPI document (docs/*.md wording); the summary stands in when absent. */
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
}

export interface RouteSpec<
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Schema = Schema,
> extends OperationSpec<P, Q, B> {
  scope: Scope;
  /** Route needs a plan feature beyond premium (403 premium_required without it). */
  feature?: 'shop';
  response: { status: 200 | 201 | 204; schema: R };
  cache: CachePolicy;
  /** Error codes this route can answer with besides the ones every /v1 route can. */
  errors: readonly ErrorCode[];
  deprecated?: Deprecation;
  /** Answer `Accept: <contentType>` requests with a stream instead of the handler's JSON. */
  stream?: StreamSpec<Out<Q>>;
  handler(ctx: RouteContext<Out<P>, Out<Q>, Out<B>>): Promise<z.output<R>>;
}

/** A route of any shape, as the router and OpenAPI generator see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any, any>;

/** The schema fields of a declaration, which may each be a thunk built on first use. */
type SchemaKeys = 'params' | 'query' | 'body' | 'response';

/** A /v1 route as declared: its schemas given as built or as thunks (protocol/lazy-schema.ts). */
export interface RouteDeclaration<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema,
> extends Omit<RouteSpec<P, Q, B, R>, SchemaKeys> {
  params?: Declared<P>;
  query?: Declared<Q>;
  body?: Declared<B>;
  response: { status: 200 | 201 | 204; schema: Declared<R> };
}

/**
 * The declaration as the router and the OpenAPI generator read it: the same fields, each schema
 * given as a thunk becoming a getter that builds it on first read (a route's first request).
 */
export function withLazySchemas<T extends { response: object }>(declaration: T): T {
  const { params, query, body, response, ...rest } = declaration as T & Record<SchemaKeys, unknown>;
  const { schema, ...status } = response as { schema?: unknown };
  const route = { ...rest } as Record<string, unknown>;
  schemaField(route, 'params', params);
  schemaField(route, 'query', query);
  schemaField(route, 'body', body);
  const answer = { ...status };
  schemaField(answer, 'schema', schema);
  route['response'] = Object.freeze(answer);
  return Object.freeze(route) as T;
}

export function defineRoute<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema,
>(route: RouteDeclaration<P, Q, B, R>): AnyRoute {
  return withLazySchemas(route) as AnyRoute;
}
