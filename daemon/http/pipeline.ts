/**
 * The request pipeline (drawn in docs/pipeline.md). A fixed order of
 * small named stages; each either returns or throws an ApiError, and exactly one place turns
 * what was thrown into a response. Callable in-process: `handle(request) → response`.
 */
import { randomBytes } from 'node:crypto';
import { OPS, type OpArgs, type OpName } from '../../protocol/ops/index.ts';
import { LinkCallError, type ModLinkServer } from '../../protocol/link-server.ts';
import { type Logger, silentLogger } from '../log/log.ts';
import type { AuditLog } from '../log/audit-log.ts';
import { CursorCodec } from './cursor.ts';
import { noopMetrics, type DaemonMetrics, UNMATCHED_ROUTE } from '../metrics/metrics.ts';
import { type Admission, type Idempotency, unkeyedAdmission } from '../idempotency/idempotency.ts';
import { ReadCache } from './read-cache.ts';
import type {
  AnyRoute,
  CallOptions,
  ListFilters,
  ListOp,
  PageOf,
  PageOptions,
  RouteServices,
  StreamSpec,
} from './define-route.ts';
import type { ApiKeyRecord } from '../store/keys-file.ts';
import type { Snapshot } from '../store/data-dir.ts';
import { ApiError } from './api-error.ts';
import { edgeSubject } from './client-address.ts';
import { HEALTHZ_PATH, healthz, healthzRequiresMod } from './healthz.ts';
import {
  type RateLimitPolicy,
  RateLimiter,
  type RateLimitVerdict,
  rateLimitHeaders,
} from './rate-limiter.ts';
import {
  baseHeaders,
  errorCodeOf,
  errorResponse,
  JSON_CONTENT_TYPE,
  newRequestId,
  withRequestId,
} from './respond.ts';
import { type Representation, Representations } from './representations.ts';
import { ReadRecord, ResponseMemo } from './response-memo.ts';
import { Router } from './router.ts';
import { accessLapsesAt, authorizeKey, type Credentials, requireApiEnabled } from './stages/access.ts';
import { cacheControl, ifNoneMatchHits, strongEtag } from './stages/caching.ts';
import { readJsonBody, ValidatedInputs } from './stages/input.ts';
import { VerifiedKeys } from './stages/verified-keys.ts';
import { toApiError } from './stages/link-errors.ts';
import { requestTarget, type RequestTarget } from './stages/target.ts';
import { holdStream } from './held-stream.ts';
import { StreamAccess } from './stream-access.ts';
import { type StreamLimits, StreamSlots } from './stream-slots.ts';
import { type ApiRequest, type ApiResponse, ClientGone, type ResponseStream } from './types.ts';

export type ModLink = Pick<ModLinkServer, 'call' | 'peer'>;

export interface PipelineOptions {
  routes: readonly AnyRoute[];
  /** The data dir as last loaded: keys, operator state, identity. */
  snapshot(): Snapshot;
  link: ModLink;
  /**
   * The OpenAPI document served at GET /openapi.json, or a function that builds it: called on
   * the first request for it, so generating it is no part of start-up.
   */
  openapi: unknown;
  log?: Logger;
  now?: () => number;
  /** Per API key (docs/pipeline.md#what-we-decided-where-the-spec-is-silent: the default policy). */
  keyRateLimit?: RateLimitPolicy;
  /** Per client address, before authentication: coarser than the per-key limit. */
  edgeRateLimit?: RateLimitPolicy;
  bodyLimitBytes?: number;
  /**
   * Check every response against its route's schema (a failure is a daemon bug: 500, logged).
   * Off by default: the link already checks every op result against the op catalogue, and the
   * check costs a tenth of a cached read. The test suite turns it on to catch handler bugs.
   */
  checkResponses?: boolean;
  /** Per-op deadlines overriding the op catalogue's (operators on slow game servers; tests). */
  opDeadlines?: Partial<Record<OpName, number>>;
  /** Idempotency-Key handling for writes; without it every write runs as new. */
  idempotency?: Idempotency;
  /** Where authenticated writes are recorded (the data dir's audit log). */
  audit?: AuditLog;
  /** When the daemon started, for GET /healthz. */
  startedAt?: Date;
  /** Record files the daemon cannot write now, for GET /healthz (storage-health.ts). */
  storageFaults?: () => readonly string[];
  /** Background loops that failed and restarted lately, for GET /healthz (worker-health.ts). */
  workerFaults?: () => readonly string[];
  /** What the pipeline counts (docs/metrics.md); nothing by default. */
  metrics?: DaemonMetrics;
  /** The event log, the webhook registry: what handlers use besides the mod. */
  services?: RouteServices;
  /** Open event streams per key and per client address (defaults in STREAM_LIMIT_DEFAULTS). */
  streamLimits?: StreamLimits;
  /**
   * Subscribes to data dir changes (the watcher's 'change' event), after which open streams
   * are re-authorized; without it they are checked only when a time-bound grant runs out.
   */
  onSnapshotChange?: (listener: () => void) => void;
}

/** What a SIGHUP may change in a running pipeline. */
export interface PipelineSettings {
  keyRateLimit?: RateLimitPolicy;
  edgeRateLimit?: RateLimitPolicy;
  opDeadlines?: Partial<Record<OpName, number>>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const DEFAULT_KEY_RATE_LIMIT: RateLimitPolicy = { limit: 120, windowSec: 60 };
export const DEFAULT_EDGE_RATE_LIMIT: RateLimitPolicy = { limit: 600, windowSec: 60 };
/** The 1 MB body limit, read as 1 MiB = 1,048,576 bytes (docs/pipeline.md, docs/errors.md). */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

export type Handle = (req: ApiRequest) => Promise<ApiResponse>;

export interface Pipeline extends Handle {
  /** Applies new limits and deadlines; a limiter whose policy is unchanged keeps its counts. */
  reconfigure(settings: PipelineSettings): void;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const router = new Router(options.routes);
  const log = options.log ?? silentLogger;
  const clock = options.now ?? Date.now;
  let keyLimiter = new RateLimiter(options.keyRateLimit ?? DEFAULT_KEY_RATE_LIMIT, clock);
  let edgeLimiter = new RateLimiter(options.edgeRateLimit ?? DEFAULT_EDGE_RATE_LIMIT, clock);
  let opDeadlines = options.opDeadlines ?? {};
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const checkResponses = options.checkResponses ?? false;
  const representations = new Representations();
  const verifiedKeys = new VerifiedKeys();
  const validatedInputs = new ValidatedInputs();
  const startedAt = options.startedAt ?? new Date(clock());
  let openapiBody: Buffer | null = null;
  const metrics = options.metrics ?? noopMetrics;
  const readCache = new ReadCache({ now: clock, observe: (outcome) => metrics.readCache(outcome) });
  const cursors = new CursorCodec(options.snapshot().identity.daemonSecretKey);
  const services = options.services ?? {};
  const memos = new ResponseMemo();
  const streamSlots = new StreamSlots(options.streamLimits);
  const streamAccess = new StreamAccess({
    snapshot: options.snapshot,
    now: clock,
    ...(options.onSnapshotChange ? { onChange: options.onSnapshotChange } : {}),
  });

  async function run(req: ApiRequest, exchange: Exchange): Promise<ApiResponse> {
    const url = requestTarget(req.url);
    // Before the edge limit: behind a load balancer every probe comes from the same address.
    if ((req.method === 'GET' || req.method === 'HEAD') && url.pathname === HEALTHZ_PATH) {
      return health(req, url, exchange);
    }
    limit(edgeLimiter, edgeSubject(req.remoteAddress), exchange, () => metrics.rateLimited('edge'));
    if (req.method === 'GET' && url.pathname === '/openapi.json') return openapi(exchange);
    if (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/')) throw new ApiError('not_found');
    const snapshot = options.snapshot();
    requireApiEnabled(snapshot);
    const match = router.match(req.method, url.pathname);
    if (!match) throw new ApiError('not_found', 'No such endpoint.');
    const { route } = match;
    exchange.route = route;
    if (route.deprecated) Object.assign(exchange.headers, deprecationHeaders(route.deprecated));
    const now = new Date(clock());
    const key = authorizeKey(snapshot, route, credentialsOf(req), now, verifiedKeys, (known) => {
      exchange.keyId = known.id;
      showLimit(keyLimiter, known.id, exchange);
    });
    limit(keyLimiter, key.id, exchange, () => metrics.rateLimited('key'));
    // Most requests have no body and their route takes none: no await for them.
    const rawBody = route.body || req.hasBody ? await readJsonBody(req, route, bodyLimit) : undefined;
    const input = validatedInputs.validate(route, match.params, url, rawBody);
    if (wantsStream(route, req)) return openStream(route, input.query, key, req, exchange);
    const memoKey = memoKeyOf(route, key.id, url);
    const memo = memoKey === null ? undefined : memos.lookup(memoKey, (r) => readCache.holds(r.key, r.value));
    if (memo !== undefined) {
      for (let i = 0; i < memo.reads.length; i++) readCache.countHit();
      return answer(route, memo.representation, req, exchange.headers);
    }
    const pending = admit(route, key.id, req, url.pathname, input.body);
    const admission = pending instanceof Promise ? await pending : pending;
    if (admission.kind === 'replay') return replayed(admission.response, exchange);
    let response: ApiResponse;
    try {
      const record = memoKey === null ? null : new ReadRecord();
      const read = readThrough(route, admission.opIdBase, record);
      const result = await route.handler({
        ...input,
        key,
        requestId: exchange.requestId,
        headers: req.headers,
        call: read.call,
        read: read.read,
        page: (op, filters, pageOptions) =>
          page(read.read, { keyId: key.id, route: route.operationId, filters }, op, pageOptions, record),
        invalidate: (tags) => readCache.invalidate(tags),
        server: {
          serverId: snapshot.identity.serverId,
          name: snapshot.identity.name,
          modVersion: options.link.peer?.modVersion ?? null,
        },
        services,
      });
      response = respond(route, result, req, exchange.headers);
      if (memoKey !== null && record?.answeredWith(result)) {
        // Kept only for a frozen result: a read-cache value, or a page built from one.
        const representation = representations.kept(route, result);
        if (representation) memos.remember(memoKey, { reads: record.reads, representation });
      }
    } catch (error) {
      if (!(error instanceof ApiError)) {
        admission.abandon();
        throw error;
      }
      response = failure(error, exchange);
    }
    await admission.complete(response).catch((error: unknown) => {
      metrics.writeFailed('journal');
      throw error;
    });
    return response;
  }

  /**
   * The streaming stage (docs/pipeline.md): a route that declares a stream and a request that
   * accepts it get a long-lived response instead of the handler's JSON. Everything before it
   * (auth, scope, limits, validation) has run; the node adapter writes the head, hands the stream
   * its sink and ends it on shutdown. The stream holds a slot of its key's and address's stream
   * caps while open, and its access is re-checked as long as it lasts (docs/pipeline.md, "Streams").
   */
  function openStream(
    route: AnyRoute,
    query: unknown,
    key: ApiKeyRecord,
    req: ApiRequest,
    exchange: Exchange,
  ): ApiResponse {
    let release: () => void;
    try {
      release = streamSlots.take(key.id, req.remoteAddress);
    } catch (error) {
      metrics.rateLimited('stream');
      throw error;
    }
    let opened: ResponseStream;
    try {
      opened = (route.stream as StreamSpec<unknown>).open({ query, key, headers: req.headers, services });
    } catch (error) {
      release();
      throw error;
    }
    const credentials = credentialsOf(req);
    const stream = holdStream(opened, {
      release,
      access: streamAccess,
      requestId: exchange.requestId,
      revoked: (error) =>
        log.info('stream revoked', {
          request_id: exchange.requestId,
          key_id: key.id,
          error_code: error.code,
        }),
      // The same checks as a new request: the switch, then the key stages (stages/access.ts).
      recheck: (snapshot, now) => {
        requireApiEnabled(snapshot);
        return accessLapsesAt(snapshot, authorizeKey(snapshot, route, credentials, now, verifiedKeys));
      },
    });
    const headers = {
      ...exchange.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    };
    return { status: 200, headers, body: null, stream };
  }

  /** docs/idempotency.md: replay or conflict before the handler; writes only. */
  function admit(
    route: AnyRoute,
    keyId: string,
    req: ApiRequest,
    path: string,
    body: unknown,
  ): Promise<Admission> | Admission {
    const header = WRITE_METHODS.has(route.method) ? req.headers['idempotency-key'] : undefined;
    if (!options.idempotency || header === undefined) return unkeyedAdmission();
    return options.idempotency.admit({ keyId, method: route.method, route: route.path, path, body, header });
  }

  async function callMod<N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) {
    const started = performance.now();
    let outcome = 'ok';
    try {
      const deadlineMs = callOptions?.deadlineMs ?? opDeadlines[op];
      return await options.link.call(
        op,
        args,
        deadlineMs === undefined ? callOptions : { ...callOptions, deadlineMs },
      );
    } catch (error) {
      outcome = opOutcome(error);
      throw toApiError(error);
    } finally {
      metrics.modOp(op, outcome, (performance.now() - started) / 1000);
    }
  }

  /**
   * The handler's `call` and `read` for one request. Each mutating op gets its own op id,
   * `<base>.<n>`, the same on every retry of the request, so the game applies it once.
   */
  function readThrough(route: AnyRoute, keyedBase: string | null, record: ReadRecord | null) {
    let writes = 0;
    let opIdBase = keyedBase;
    const direct = <N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) => {
      record?.called();
      return call(op, args, callOptions);
    };
    const call = <N extends OpName>(op: N, args: OpArgs<N>, callOptions?: CallOptions) => {
      if (!OPS[op].mutates || callOptions?.opId !== undefined) return callMod(op, args, callOptions);
      opIdBase ??= randomBytes(16).toString('base64url');
      return callMod(op, args, { ...callOptions, opId: `${opIdBase}.${writes++}` });
    };
    const read = async <N extends OpName>(op: N, args: OpArgs<N>, tags: readonly string[] = []) => {
      if (route.cache.kind === 'no-store') return direct(op, args);
      const cacheKey = `${op} ${JSON.stringify(args)}`;
      const value = await readCache.get(cacheKey, route.cache.maxAgeSec * 1000, tags, async () =>
        representations.freeze(await call(op, args)),
      );
      record?.read(cacheKey, value);
      return value;
    };
    return { call: direct, read };
  }

  async function page<N extends ListOp>(
    read: ReturnType<typeof readThrough>['read'],
    scope: { keyId: string; route: string; filters: ListFilters<N> },
    op: N,
    { cursor, limit, tags }: PageOptions,
    record: ReadRecord | null,
  ): Promise<PageOf<N>> {
    const after = cursor === undefined ? null : cursors.decode(scope, cursor);
    const args = { ...scope.filters, after, limit } as OpArgs<N>;
    const result = (await read(op, args, tags)) as { data: unknown[]; next: string | null; total?: number };
    // Built once per cached page, key and route: the cursor is bound to all three.
    const envelope = representations.derive(result, `${scope.keyId} ${scope.route}`, () => {
      const built: Record<string, unknown> = {
        data: result.data,
        has_more: result.next !== null,
        next_cursor: result.next === null ? null : cursors.encode(scope, result.next),
      };
      if (result.total !== undefined) built['total'] = result.total;
      return built;
    }) as PageOf<N>;
    record?.returned(envelope);
    return envelope;
  }

  /** Serialize, then ETag / 304; a frozen (read-cache) result is serialized and hashed once. */
  function respond(route: AnyRoute, result: unknown, req: ApiRequest, headers: Record<string, string>) {
    if (route.response.status === 204) {
      if (checkResponses) route.response.schema.parse(result);
      return { status: 204, headers, body: null };
    }
    return answer(
      route,
      representations.represent(route, result, () => represent(route, result)),
      req,
      headers,
    );
  }

  /** The response for a representation: Cache-Control, and the ETag with its 304. */
  function answer(
    route: AnyRoute,
    { body, etag }: Representation,
    req: ApiRequest,
    headers: Record<string, string>,
  ): ApiResponse {
    const out: Record<string, string> = { ...headers, 'cache-control': cacheControl(route.cache) };
    if (etag !== null && ifNoneMatchHits(req.headers['if-none-match'], etag)) {
      out['etag'] = etag;
      return { status: 304, headers: out, body: null };
    }
    out['content-type'] = JSON_CONTENT_TYPE;
    if (etag !== null) out['etag'] = etag;
    return { status: route.response.status, headers: out, body };
  }

  function represent(route: AnyRoute, result: unknown): Representation {
    const value = checkResponses ? route.response.schema.parse(result) : result;
    const body = Buffer.from(JSON.stringify(value));
    return { body, etag: route.cache.kind === 'private' ? strongEtag(body) : null };
  }

  /** GET /healthz (docs/operations.md): no key, outside /v1, logged at debug. */
  function health(req: ApiRequest, url: RequestTarget, exchange: Exchange): ApiResponse {
    exchange.quiet = true;
    exchange.label = HEALTHZ_PATH;
    const peer = options.link.peer;
    const answer = healthz(
      {
        modConnected: peer !== null,
        modVersion: peer?.modVersion ?? null,
        startedAt,
        apiEnabled: options.snapshot().state.apiEnabled,
        storageFaults: options.storageFaults?.() ?? [],
        workerFaults: options.workerFaults?.() ?? [],
      },
      { now: new Date(clock()), requireMod: healthzRequiresMod(url.searchParams) },
    );
    return {
      status: answer.status,
      headers: { ...exchange.headers, ...answer.headers },
      body: req.method === 'HEAD' ? null : Buffer.from(JSON.stringify(answer.body)),
    };
  }

  function openapi(exchange: Exchange): ApiResponse {
    exchange.label = '/openapi.json';
    const headers = { ...exchange.headers, 'content-type': 'application/json; charset=utf-8' };
    return {
      status: 200,
      headers: { ...headers, 'cache-control': 'public, max-age=300' },
      body: (openapiBody ??= Buffer.from(JSON.stringify(openapiDocument(options.openapi)))),
    };
  }

  const handle = async function handle(req: ApiRequest): Promise<ApiResponse> {
    const started = performance.now();
    const exchange = newExchange();
    let response: ApiResponse;
    try {
      response = await run(req, exchange);
    } catch (thrown) {
      response =
        thrown instanceof ClientGone ? gone(thrown) : failure(asApiError(thrown, exchange, log), exchange);
    }
    audit(req, exchange, response);
    const ms = performance.now() - started;
    (exchange.quiet ? log.debug : log.info)('request', {
      request_id: exchange.requestId,
      method: req.method,
      route: exchange.route?.path ?? null,
      key_id: exchange.keyId,
      client_address: req.remoteAddress,
      status: response.status,
      error_code: exchange.errorCode,
      ms: Math.round(ms * 10) / 10,
    });
    count(exchange, req.method, response, ms / 1000);
    return response;
  };

  /** An authenticated write, whatever its outcome, goes to the audit log. */
  function audit(req: ApiRequest, exchange: Exchange, response: ApiResponse): void {
    if (
      !options.audit ||
      exchange.keyId === null ||
      exchange.route === null ||
      exchange.route.method === 'GET'
    )
      return;
    void options.audit
      .append({
        time: new Date(clock()).toISOString(),
        request_id: exchange.requestId,
        key_id: exchange.keyId,
        method: req.method,
        route: exchange.route.path,
        target: req.url.split('?')[0] ?? req.url,
        status: response.status,
        outcome: response.status === 499 ? 'aborted' : response.status < 400 ? 'ok' : 'error',
        error_code: exchange.errorCode,
        replayed: response.headers['idempotent-replayed'] === 'true',
      })
      .catch((error: unknown) => {
        metrics.writeFailed('audit');
        log.error('audit log write failed', { error });
      });
  }

  /** The request's metrics: its route template, or a fixed label outside the route table. */
  function count(exchange: Exchange, method: string, response: ApiResponse, seconds: number): void {
    metrics.httpRequest(
      exchange.label ?? exchange.route?.path ?? UNMATCHED_ROUTE,
      method,
      response.status,
      seconds,
    );
    if (response.headers['idempotent-replayed'] === 'true') metrics.idempotency('replay');
    else if (exchange.errorCode === 'idempotency_conflict') metrics.idempotency('conflict');
  }

  const reconfigure = (settings: PipelineSettings) => {
    const same = (a: RateLimitPolicy, b: RateLimitPolicy) =>
      a.limit === b.limit && a.windowSec === b.windowSec;
    if (settings.keyRateLimit && !same(settings.keyRateLimit, keyLimiter.policy)) {
      keyLimiter = new RateLimiter(settings.keyRateLimit, clock);
    }
    if (settings.edgeRateLimit && !same(settings.edgeRateLimit, edgeLimiter.policy)) {
      edgeLimiter = new RateLimiter(settings.edgeRateLimit, clock);
    }
    if (settings.opDeadlines) opDeadlines = settings.opDeadlines;
  };
  return Object.assign(handle, { reconfigure });
}

interface Exchange {
  requestId: string;
  headers: Record<string, string>;
  route: AnyRoute | null;
  keyId: string | null;
  errorCode: string | null;
  /** Logged at debug only (health probes). */
  quiet: boolean;
  /** The metrics route label of a path outside the route table (/healthz, /openapi.json). */
  label: string | null;
}

function newExchange(): Exchange {
  const requestId = newRequestId();
  return {
    requestId,
    headers: baseHeaders(requestId),
    route: null,
    keyId: null,
    errorCode: null,
    quiet: false,
    label: null,
  };
}

function openapiDocument(source: unknown): unknown {
  return typeof source === 'function' ? (source as () => unknown)() : source;
}

/**
 * Where a finished read is memoized (response-memo.ts): a cacheable GET, by key id, route and
 * the raw target; null for every other request.
 */
function memoKeyOf(route: AnyRoute, keyId: string, url: RequestTarget): string | null {
  if (route.method !== 'GET' || route.cache.kind !== 'private') return null;
  return `${keyId} ${route.operationId} ${url.pathname}?${url.search}`;
}

function credentialsOf(req: ApiRequest): Credentials {
  return { authorization: req.headers['authorization'], remoteAddress: req.remoteAddress };
}

/** True when the route can stream and the client asked for its stream's media type. */
function wantsStream(route: AnyRoute, req: ApiRequest): boolean {
  const type = route.stream?.contentType;
  if (!type || req.method !== 'GET') return false;
  return (req.headers['accept'] ?? '')
    .split(',')
    .some((part) => part.split(';')[0]?.trim().toLowerCase() === type);
}

/** Counts the request, puts the RateLimit headers on whatever the response turns out to be. */
function limit(limiter: RateLimiter, subject: string, exchange: Exchange, refused: () => void): void {
  const verdict: RateLimitVerdict = limiter.take(subject);
  Object.assign(exchange.headers, rateLimitHeaders(verdict));
  if (!verdict.allowed) {
    refused();
    throw new ApiError('rate_limited', `Rate limit reached; retry in ${verdict.resetSec} s.`, {
      headers: { 'retry-after': String(verdict.resetSec) },
    });
  }
}

/**
 * Once the key is known, the RateLimit headers describe its own limit ("per API key"), also on
 * a 403 before the per-key stage, which spends none of it (docs/pipeline.md).
 */
function showLimit(limiter: RateLimiter, subject: string, exchange: Exchange): void {
  Object.assign(exchange.headers, rateLimitHeaders(limiter.peek(subject)));
}

/** The op metric's outcome: a link failure's kind, or the code the mod answered with. */
function opOutcome(error: unknown): string {
  if (!(error instanceof LinkCallError)) return 'error';
  return error.kind === 'remote' ? (error.opError?.code ?? 'internal') : error.kind;
}

/** docs/pipeline.md: `Deprecation: @<unix-seconds>` and, once set, `Sunset: <HTTP-date>`. */
function deprecationHeaders(deprecated: NonNullable<AnyRoute['deprecated']>): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(deprecated.since.getTime() / 1000)}`,
  };
  if (deprecated.sunset) headers['sunset'] = deprecated.sunset.toUTCString();
  return headers;
}

/**
 * The one place an ApiError becomes a response: the envelope, with the code remembered for the
 * audit log. The handler's errors pass here inside the idempotency section (so a 4xx can be
 * stored for replay), everything else from the outer catch.
 */
function failure(error: ApiError, exchange: Exchange): ApiResponse {
  exchange.errorCode = error.code;
  return errorResponse(error, exchange.requestId, exchange.headers);
}

/** A stored outcome for this request: its headers and, in an error, its own request id. */
function replayed(stored: ApiResponse, exchange: Exchange): ApiResponse {
  exchange.errorCode = errorCodeOf(stored);
  const response = withRequestId(stored, exchange.requestId);
  return { ...response, headers: { ...exchange.headers, ...response.headers } };
}

/**
 * The client left before its request was read (499, logged and audited as such) or its body
 * timed out (408, already answered by the listener). Nothing is written back.
 */
function gone(thrown: ClientGone): ApiResponse {
  return { status: thrown.status, headers: {}, body: null };
}

/** Anything that is not an ApiError is a bug: logged whole, answered with a bare 500. */
function asApiError(thrown: unknown, exchange: Exchange, log: Logger): ApiError {
  if (thrown instanceof ApiError) return thrown;
  log.error('unhandled error', { request_id: exchange.requestId, error: thrown });
  return new ApiError('internal');
}
