/**
 * The admin event streams (GET /admin/v1/events, docs/admin.md "Live events"): every event, of
 * every type and unredacted, for the panel's live view. They are the /v1 stream's EventStream
 * (the same catch-up, `Last-Event-ID` resume, heartbeats and slow-reader cut) held the way the
 * /v1 streaming stage holds its streams (held-stream.ts): a slot of the stream caps while open,
 * and access watched for as long as it lasts. What ends an admin stream's access is its admin
 * token being revoked (or taken from admin-tokens.json): the moment the daemon loads that change,
 * `tokenRevoked` ends every stream that token opened (directly, or through a panel session made
 * from it) with the 401 envelope a new request would get. So does a stream a panel session opened
 * when that session ends: signed out, expired, or pushed out at the cap (`recheckAll`). Both are
 * reactions (daemon/reactions.ts). A stream opened over admin.sock has no token; it lasts until
 * the client or the daemon ends it.
 */
import { EventStream, type StreamSettings } from '../events/sse-stream.ts';
import { eventView } from '../events/payloads.ts';
import type { FileEventLog } from '../events/event-log.ts';
import type { EventType } from '../events/types.ts';
import { ApiError } from '../http/api-error.ts';
import { holdStream } from '../http/held-stream.ts';
import { StreamAccess } from '../http/stream-access.ts';
import { StreamSlots } from '../http/stream-slots.ts';
import type { ResponseStream } from '../http/types.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import type { Snapshot } from '../store/data-dir.ts';
import type { AdminActor } from './admin-actor.ts';

export interface AdminStreamLimits {
  /** Open admin event streams per admin: one admin token (with the panel sessions made from it), or admin.sock's user. */
  maxPerActor: number;
  /** Open admin event streams in all. */
  maxTotal: number;
}

export const ADMIN_STREAM_LIMIT_DEFAULTS: AdminStreamLimits = Object.freeze({ maxPerActor: 4, maxTotal: 16 });

export interface AdminEventStreamsOptions {
  eventLog: FileEventLog;
  snapshot(): Snapshot;
  limits?: Partial<AdminStreamLimits>;
  /** Heartbeat and slow-reader limit, as the /v1 stream's (defaults in STREAM_DEFAULTS). */
  settings?: Partial<StreamSettings>;
  metrics?: Pick<DaemonMetrics, 'eventSubscribers' | 'eventStreamCut'>;
  now?: () => number;
}

/** Every field of every event: the operator sees what `players:read_sensitive` sees. */
const FULL_VIEW = eventView(['players:read_sensitive']);
const NO_EVENTS: ReadonlySet<EventType> = new Set();
/** StreamSlots counts per key and per address; here per actor and, under one name, in all. */
const ALL_ADMIN_STREAMS = 'admin';

export class AdminEventStreams {
  readonly #slots: StreamSlots;
  readonly #access: StreamAccess;
  readonly #options: AdminEventStreamsOptions;
  /** The token being revoked while the open streams are checked again; null otherwise. */
  #revoking: string | null = null;

  constructor(options: AdminEventStreamsOptions) {
    this.#options = options;
    const limits = { ...ADMIN_STREAM_LIMIT_DEFAULTS, ...options.limits };
    this.#slots = new StreamSlots({ maxPerKey: limits.maxPerActor, maxPerAddress: limits.maxTotal });
    this.#access = new StreamAccess({ snapshot: options.snapshot, now: options.now ?? Date.now });
  }

  /** Ends every open stream opened with this admin token, or a session made from it: it was revoked. */
  tokenRevoked(tokenId: string): void {
    this.#revoking = tokenId;
    try {
      this.#access.recheckAll();
    } finally {
      this.#revoking = null;
    }
  }

  /**
   * A stream of the events after `after` (only `types` when given) for `actor`, opened through
   * `session` when a panel session made the request (its expiry, null once it has ended); 429
   * `rate_limited` when the actor, or all admins together, hold as many as allowed.
   */
  open(
    actor: AdminActor,
    requestId: string,
    after: number,
    types: ReadonlySet<EventType> | null,
    session: { expiry(): Date | null } | null = null,
  ): ResponseStream {
    return this.#held(actor, requestId, after, types, session, this.#take(holderOf(actor)));
  }

  /**
   * A stream of no events, only heartbeats, that ends with the 401 envelope the moment this
   * session or its token does (GET /admin/v1/session/watch): how an idle panel page learns it was
   * signed out within a second. It takes no slot of the caps (it holds no events, so nothing
   * for a slow reader to pile up): every open page holds one, and the listener's connection caps
   * bound them.
   */
  watch(actor: AdminActor, requestId: string, session: { expiry(): Date | null } | null): ResponseStream {
    const last = this.#options.eventLog.lastId();
    return this.#held(actor, requestId, last, NO_EVENTS, session, () => undefined);
  }

  #held(
    actor: AdminActor,
    requestId: string,
    after: number,
    types: ReadonlySet<EventType> | null,
    session: { expiry(): Date | null } | null,
    release: () => void,
  ): ResponseStream {
    const { eventLog, metrics, settings } = this.#options;
    const tokenId = actor.kind === 'local' ? null : actor.token_id;
    const inner = new EventStream({
      eventLog,
      after,
      types,
      view: FULL_VIEW,
      subscribers: (delta) => metrics?.eventSubscribers(delta, 'sse'),
      cut: (reason) => metrics?.eventStreamCut(reason),
      ...settings,
    });
    return holdStream(inner, {
      release,
      access: this.#access,
      requestId,
      recheck: () => {
        if (tokenId !== null && tokenId === this.#revoking) {
          throw new ApiError('unauthorized', 'The admin token this stream was opened with was revoked.');
        }
        if (session === null) return null;
        const expiry = session.expiry();
        if (expiry === null) {
          throw new ApiError(
            'unauthorized',
            'The panel session this stream was opened with has ended (signed out or expired); sign in again.',
          );
        }
        return expiry.getTime();
      },
    });
  }

  /** Checks every open stream's access again now: a panel session ended. */
  recheckAll(): void {
    this.#access.recheckAll();
  }

  /** A slot, or 429 saying which cap is reached (StreamSlots words its refusals for /v1's keys). */
  #take(actorId: string): () => void {
    try {
      return this.#slots.take(actorId, ALL_ADMIN_STREAMS);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const { maxPerKey, maxPerAddress } = this.#slots.limits;
      const message = `An admin may hold ${maxPerKey} open event streams, and all admins ${maxPerAddress}; close one, or retry once one has ended.`;
      throw new ApiError('rate_limited', message, { headers: error.headers });
    }
  }
}

/** Whose slots a stream takes: a token and the panel sessions made from it are one admin. */
function holderOf(actor: AdminActor): string {
  return actor.kind === 'local' ? `local:${actor.uid}` : `token:${actor.token_id}`;
}
