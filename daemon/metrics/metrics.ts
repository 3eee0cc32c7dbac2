/**
 * What the daemon counts, as one small interface: the pipeline, the mod link, the read cache and
 * the stores call these hooks, and never see Prometheus. `createPrometheusMetrics`
 * (prometheus.ts) records them for the metrics listener; `noopMetrics` is the default, so a
 * daemon without `--metrics-listen` and every in-process test pays nothing.
 *
 * Every label value passed in must come from a fixed set: a route template (never a concrete
 * path), an HTTP method from METHODS, an op name from the catalogue, a layer, an outcome. No
 * key, key id, player id or client address is ever a label (docs/metrics.md).
 */
import type { StreamCutReason } from '../events/types.ts';
import type { EventRefusalReason } from '../../protocol/frames.ts';

/** How a read was answered: from the cache, by joining an identical read in flight, or by the mod. */
export type ReadCacheOutcome = 'hit' | 'coalesced' | 'miss';
/**
 * Which rate limit refused a request: per client address (edge), per API key, or the caps on
 * open event streams (per key and per address).
 */
export type RateLimitLayer = 'edge' | 'key' | 'stream';
/** The data dir files the daemon appends to. */
export type WriteStore = 'audit' | 'journal';
/**
 * How a webhook delivery attempt ended: answered 2xx, failed and to be retried, or failed and
 * the endpoint disabled (410 Gone, or one message failing for the whole retry window). An
 * attempt cancelled by shutdown is not counted: it is sent again after the restart.
 */
export type WebhookOutcome = 'delivered' | 'failed' | 'gave_up';
/** Why a mod's event was refused (PROTOCOL §9.5); the same fixed set as the ack's `refused`. */
export type EventRefusalLabel = EventRefusalReason;
/** A background loop that is restarted when it fails (docs/metrics.md). */
export type WorkerLabel = 'webhook';

export interface DaemonMetrics {
  /** One finished HTTP request: its route template (or a fixed label), method, status, duration. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** The mod link went up (a mod authenticated) or down. */
  modLink(up: boolean): void;
  /** One op sent to the mod: `outcome` is `ok`, a link failure kind, or the mod's error code. */
  modOp(op: string, outcome: string, seconds: number): void;
  readCache(outcome: ReadCacheOutcome): void;
  idempotency(outcome: 'replay' | 'conflict'): void;
  rateLimited(layer: RateLimitLayer): void;
  writeFailed(store: WriteStore): void;
  /**
   * An SSE subscriber of GET /v1/events joined (+1) or left (−1). Polling is plain requests
   * (no long-poll), counted by httpRequest like any other.
   */
  eventSubscribers(delta: 1 | -1, transport: 'sse'): void;
  /** The daemon cut an event stream: a slow reader, events gone by retention, access revoked. */
  eventStreamCut(reason: StreamCutReason): void;
  /** One webhook delivery attempt (the endpoint worker) and how long it took. */
  webhookDelivery(outcome: WebhookOutcome, seconds: number): void;
  /** A game event from the mod was refused, not stored (PROTOCOL §9.5). */
  eventsRefused(reason: EventRefusalLabel): void;
  /** A reader of the event log skipped a line it could not read (too long, or not an event). */
  eventLineSkipped(): void;
  /** Events the log could not store (a failed write, a full disk): `count` more lost. */
  eventsNotStored(count: number): void;
  /** Start-up repaired a damaged event segment: `count` ids whose events could not be read. */
  eventIdsLost(count: number): void;
  /** A background loop failed and is restarted after a backoff. */
  workerRestarted(worker: WorkerLabel): void;
}

const ignore = (): void => {};

export const noopMetrics: DaemonMetrics = Object.freeze({
  httpRequest: ignore,
  modLink: ignore,
  modOp: ignore,
  readCache: ignore,
  idempotency: ignore,
  rateLimited: ignore,
  writeFailed: ignore,
  eventSubscribers: ignore,
  eventStreamCut: ignore,
  webhookDelivery: ignore,
  eventsRefused: ignore,
  eventLineSkipped: ignore,
  eventsNotStored: ignore,
  eventIdsLost: ignore,
  workerRestarted: ignore,
});

/** Methods that keep their own label; anything else a client sends is counted as `other`. */
export const METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/** The route label of a request that matched no route (a typo, a scanner): one fixed value. */
export const UNMATCHED_ROUTE = 'unmatched';

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}
