/**
 * The streaming stage (docs/pipeline.md, "Streams"): a route that declares a stream and a
 * request that accepts it get a long-lived response instead of the handler's JSON. Everything
 * before it (auth, scope, limits, validation) has run; the node adapter writes the head, hands
 * the stream its sink and ends it on shutdown. The stream holds a slot of its key's and
 * address's stream caps while open (stream-slots.ts), and its access is re-checked as long as it
 * lasts (stream-access.ts), by the same stages as a new request.
 */
import type { Logger } from '../../log/log.ts';
import type { DaemonMetrics } from '../../metrics/metrics.ts';
import type { ApiKeyRecord } from '../../store/keys-file.ts';
import type { Snapshot } from '../../store/data-dir.ts';
import type { AnyRoute, RouteServices, StreamSpec } from '../define-route.ts';
import type { Exchange } from '../exchange.ts';
import type { AddressGrouping } from '../client-address.ts';
import { holdStream } from '../held-stream.ts';
import { accessLapsesAt, authorizeKey, credentialsOf, requireApiEnabled } from './access.ts';
import type { VerifiedKeys } from '../verified-keys.ts';
import { StreamAccess } from '../stream-access.ts';
import { type StreamLimits, StreamSlots } from '../stream-slots.ts';
import type { ApiRequest, ApiResponse, ResponseStream } from '../types.ts';

export interface StreamStageOptions {
  /** Open event streams per key and per client address (defaults in STREAM_LIMIT_DEFAULTS). */
  limits: StreamLimits | undefined;
  /** What a client address counts as for the per-address cap (client-address.ts). */
  addressGroup?: AddressGrouping;
  snapshot(): Snapshot;
  now: () => number;
  /** Subscribes to data dir changes, after which open streams are re-authorized. */
  onSnapshotChange: ((listener: () => void) => void) | undefined;
  /** The pipeline's cache of verified keys, shared so a recheck costs what a request does. */
  verifiedKeys: VerifiedKeys;
  services: RouteServices;
  log: Logger;
  metrics: DaemonMetrics;
}

/** True when the route can stream and the client asked for its stream's media type. */
export function wantsStream(route: AnyRoute, req: ApiRequest): boolean {
  const type = route.stream?.contentType;
  if (!type || req.method !== 'GET') return false;
  return (req.headers['accept'] ?? '')
    .split(',')
    .some((part) => part.split(';')[0]?.trim().toLowerCase() === type);
}

export class StreamStage {
  readonly #slots: StreamSlots;
  readonly #access: StreamAccess;
  readonly #options: StreamStageOptions;

  constructor(options: StreamStageOptions) {
    this.#options = options;
    this.#slots = new StreamSlots(options.limits, options.addressGroup);
    this.#access = new StreamAccess({
      snapshot: options.snapshot,
      now: options.now,
      ...(options.onSnapshotChange ? { onChange: options.onSnapshotChange } : {}),
    });
  }

  /** Takes a slot, opens the route's stream and holds it (held-stream.ts) until it ends. */
  open(route: AnyRoute, query: unknown, key: ApiKeyRecord, req: ApiRequest, exchange: Exchange): ApiResponse {
    const { log, metrics, services, verifiedKeys } = this.#options;
    let release: () => void;
    try {
      release = this.#slots.take(key.id, req.remoteAddress);
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
      access: this.#access,
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
}
