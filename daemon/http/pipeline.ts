/**
 * The request pipeline of /v1 (drawn in docs/pipeline.md). A fixed order of small named
 * stages; each either returns or throws an ApiError, and exactly one place (the skeleton both
 * APIs run, plane.ts) turns what was thrown into a response. Callable in-process:
 * `handle(request) → response`.
 *
 * `run()` is that order, stage by stage, as docs/pipeline.md draws it; the work behind the
 * stages lives in stages/, a module each: target, the built-in paths (builtin-routes.ts), limits,
 * access, input, streams (stream-stage.ts), the memo (response-memo.ts), idempotency
 * (admission.ts), calling the mod and the read cache (mod-calls.ts), rendering answers and ETags
 * (answers.ts); what watches every answered request (audit log, request log, metrics) is
 * observers.ts.
 */
import type { OpName } from '../../protocol/ops/index.ts';
import { silentLogger, type Logger } from '../log/log.ts';
import type { AuditLog } from '../log/audit-log.ts';
import { noopMetrics, type DaemonMetrics } from '../metrics/metrics.ts';
import type { Idempotency } from '../idempotency/idempotency.ts';
import type { Snapshot } from '../store/data-dir.ts';
import { Answers, failure, replayed } from './stages/answers.ts';
import { ApiError } from './api-error.ts';
import { BuiltinRoutes, isHealthProbe, OPENAPI_PATH } from './stages/builtin-routes.ts';
import { type AddressGrouping, edgeSubject } from './client-address.ts';
import { CursorCodec } from './cursor.ts';
import type { AnyRoute, RouteServices, WriteActorInput } from './define-route.ts';
import { SCOPES } from '../scopes.ts';
import type { ApiKeyRecord } from '../store/keys-file.ts';
import { type Exchange, newExchange } from './exchange.ts';
import { type AfterWrite, ModCalls, type ModLink } from './stages/mod-calls.ts';
import { RequestObservers } from './observers.ts';
import { handleOf } from './plane.ts';
import type { RateLimitPolicy } from './rate-limiter.ts';
import { ReadCache } from './read-cache.ts';
import { Representations } from './representations.ts';
import { type MemoRead, ReadRecord, ResponseMemo } from './stages/response-memo.ts';
import { Router } from './router.ts';
import { authorizeKey, credentialsOf, requireApiEnabled } from './stages/access.ts';
import { admit } from './stages/admission.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonBody, ValidatedInputs, type ValidInput } from './stages/input.ts';
import { RateLimits } from './stages/rate-limits.ts';
import { requestTarget, type RequestTarget } from './stages/target.ts';
import { VerifiedKeys } from './verified-keys.ts';
import { StreamStage, wantsStream } from './stages/stream-stage.ts';
import type { StreamLimits } from './stream-slots.ts';
import type { ApiRequest, ApiResponse } from './types.ts';

export type { AfterWrite, ModLink } from './stages/mod-calls.ts';

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
  /** What a client address counts as for the edge limit and the stream cap (IPv6: a /64 unless given). */
  addressGroup?: AddressGrouping;
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
  /** Told of every key that authenticates, for last_used_at / last_used_ip (key-usage-recorder.ts). */
  keyUsage?: KeyUsageSink;
  /** Awaited after each mutating op's successful answer, for both APIs (group mode's outbox, daemon/group). */
  afterWrite?: AfterWrite;
}

/** Where the pipeline reports a key's use; must be cheap, it runs on every authenticated request. */
export interface KeyUsageSink {
  record(keyId: string, ip: string, atMs: number): void;
}

/** What a SIGHUP may change in a running pipeline. */
export interface PipelineSettings {
  keyRateLimit?: RateLimitPolicy;
  edgeRateLimit?: RateLimitPolicy;
  opDeadlines?: Partial<Record<OpName, number>>;
}

export const DEFAULT_KEY_RATE_LIMIT: RateLimitPolicy = { limit: 120, windowSec: 60 };
export const DEFAULT_EDGE_RATE_LIMIT: RateLimitPolicy = { limit: 600, windowSec: 60 };
export { DEFAULT_BODY_LIMIT_BYTES };

export type Handle = (req: ApiRequest) => Promise<ApiResponse>;

export interface Pipeline extends Handle {
  /** Applies new limits and deadlines; a limiter whose policy is unchanged keeps its counts. */
  reconfigure(settings: PipelineSettings): void;
  /**
   * Runs a /v1 route's handler for the admin API's game routes (docs/admin.md, "Game routes"),
   * with this pipeline's mod calls, deadlines, read cache and cursors: the same operation code,
   * for a caller that holds no key. What comes before the handler is the admin pipeline's.
   */
  runGame(route: AnyRoute, call: GameCall): Promise<unknown>;
}

/** One admin request on a game route, validated and admitted by the admin pipeline. */
export interface GameCall {
  input: ValidInput;
  /** The admin as one string (`admin:token:…`): what its cursors are bound to. */
  callerId: string;
  /** What its writes are attributed to on the mod link (source `panel`). */
  actor: WriteActorInput;
  headers: ApiRequest['headers'];
  requestId: string;
  /** From its Idempotency-Key, so a retried write has the same op ids (PROTOCOL §6.4). */
  opIdBase: string | null;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const parts = pipelineParts(options);
  const { router, clock, metrics, log, bodyLimit, limits, verifiedKeys, validatedInputs, addressGroup } =
    parts;
  const { representations, readCache, memos, builtins, streams, calls, answers, observers } = parts;
  const keyUsage = options.keyUsage;
  /** Whether a memoized read is still backed by the live read-cache entry it came from. */
  const stillHeld = (read: MemoRead) => readCache.holds(read.key, read.value);

  async function run(req: ApiRequest, exchange: Exchange): Promise<ApiResponse> {
    const url = requestTarget(req.url);
    // Before the edge limit: behind a load balancer every probe comes from the same address.
    if (isHealthProbe(req, url)) return builtins.health(req, url, exchange);
    limits.edge(addressGroup(req.remoteAddress), exchange);
    if (req.method === 'GET' && url.pathname === OPENAPI_PATH) return builtins.openapi(exchange);
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
      keyUsage?.record(known.id, req.remoteAddress, now.getTime());
      limits.showKey(known.id, exchange);
    });
    limits.key(key.id, exchange);
    // Most requests have no body and their route takes none: no await for them.
    const rawBody = route.body || req.hasBody ? await readJsonBody(req, route, bodyLimit) : undefined;
    const input = validatedInputs.validate(route, match.params, url, rawBody);
    if (wantsStream(route, req)) return streams.open(route, input.query, key, req, exchange);
    const memoKey = memoKeyOf(route, key.id, url);
    const memo = memoKey === null ? undefined : memos.lookup(memoKey, stillHeld);
    if (memo !== undefined) {
      for (let i = 0; i < memo.reads.length; i++) readCache.countHit();
      return answers.answer(route, memo.representation, req, exchange.headers);
    }
    const pending = admit(options.idempotency, WRITE_METHODS, route, key.id, req, url.pathname, input.body);
    const admission = pending instanceof Promise ? await pending : pending;
    if (admission.kind === 'replay') return replayed(admission.response, exchange);
    let response: ApiResponse;
    try {
      const record = memoKey === null ? null : new ReadRecord();
      const context = calls.context(
        route,
        input,
        key,
        req.headers,
        exchange.requestId,
        snapshot,
        admission.opIdBase,
        record,
      );
      const result = await route.handler(context);
      response = answers.respond(route, result, req, exchange.headers);
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

  const observe = observers.observe.bind(observers);
  const handle = handleOf({ exchange: newExchange, run, observe, log });

  const runGame = (route: AnyRoute, call: GameCall) => {
    const snapshot = options.snapshot();
    const caller = gameCaller(call.callerId, call.actor.name);
    const { input, headers, requestId, opIdBase, actor } = call;
    return route.handler(
      calls.context(route, input, caller, headers, requestId, snapshot, opIdBase, null, actor),
    );
  };

  const reconfigure = (settings: PipelineSettings) => {
    limits.reconfigure({ key: settings.keyRateLimit, edge: settings.edgeRateLimit });
    if (settings.opDeadlines) calls.opDeadlines = settings.opDeadlines;
  };
  return Object.assign(handle, { reconfigure, runGame });
}

/**
 * The key a game route's handler sees: the admin's id and name, no secret and every scope (the
 * admin API has checked the caller's role already). Only cursors and the webhook routes read a
 * key, and no game route is a webhook route.
 */
function gameCaller(id: string, name: string): ApiKeyRecord {
  return {
    id,
    name,
    hash: '',
    scopes: SCOPES,
    allowIps: [],
    ownerPlatformId: null,
    ownerSocialId: null,
    createdAt: new Date(0),
    expiresAt: null,
    revokedAt: null,
    rolledFrom: null,
    rolledTo: null,
  };
}

/**
 * What the pipeline is built from, once: the router, the limits, the caches, and the modules the
 * stages call. Nothing here runs per request.
 */
function pipelineParts(options: PipelineOptions) {
  const router = new Router(options.routes);
  const log = options.log ?? silentLogger;
  const clock = options.now ?? Date.now;
  const metrics = options.metrics ?? noopMetrics;
  const services = options.services ?? {};
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const limits = new RateLimits(
    {
      key: options.keyRateLimit ?? DEFAULT_KEY_RATE_LIMIT,
      edge: options.edgeRateLimit ?? DEFAULT_EDGE_RATE_LIMIT,
    },
    clock,
    metrics,
  );
  const representations = new Representations();
  const verifiedKeys = new VerifiedKeys();
  const validatedInputs = new ValidatedInputs();
  const readCache = new ReadCache({ now: clock, observe: (outcome) => metrics.readCache(outcome) });
  const memos = new ResponseMemo();
  const builtins = new BuiltinRoutes({
    ...options,
    startedAt: options.startedAt ?? new Date(clock()),
    now: clock,
  });
  const addressGroup = options.addressGroup ?? edgeSubject;
  const streams = new StreamStage({
    limits: options.streamLimits,
    addressGroup,
    snapshot: options.snapshot,
    now: clock,
    onSnapshotChange: options.onSnapshotChange,
    verifiedKeys,
    services,
    log,
    metrics,
  });
  const calls = new ModCalls({
    link: options.link,
    opDeadlines: options.opDeadlines ?? {},
    metrics,
    readCache,
    representations,
    cursors: new CursorCodec(options.snapshot().identity.daemonSecretKey),
    services,
    ...(options.afterWrite ? { afterWrite: options.afterWrite } : {}),
  });
  const answers = new Answers(representations, options.checkResponses ?? false);
  const observers = new RequestObservers({ log, metrics, audit: options.audit, now: clock });
  return {
    router,
    addressGroup,
    clock,
    metrics,
    log,
    bodyLimit,
    limits,
    verifiedKeys,
    validatedInputs,
    representations,
    readCache,
    memos,
    builtins,
    streams,
    calls,
    answers,
    observers,
  };
}

/** The methods an Idempotency-Key applies to on /v1 (docs/idempotency.md). */
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Where a finished read is memoized (response-memo.ts): a cacheable GET, by key id, route and
 * the raw target; null for every other request.
 */
function memoKeyOf(route: AnyRoute, keyId: string, url: RequestTarget): string | null {
  if (route.method !== 'GET' || route.cache.kind !== 'private') return null;
  return `${keyId} ${route.operationId} ${url.pathname}?${url.search}`;
}

/** docs/pipeline.md: `Deprecation: @<unix-seconds>` and, once set, `Sunset: <HTTP-date>`. */
function deprecationHeaders(deprecated: NonNullable<AnyRoute['deprecated']>): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(deprecated.since.getTime() / 1000)}`,
  };
  if (deprecated.sunset) headers['sunset'] = deprecated.sunset.toUTCString();
  return headers;
}
