/**
 * The mod's side of game events (PROTOCOL §9): every event gets the next sequence number of this
 * process's stream and waits in a bounded buffer until the daemon acknowledges it (§9.3). While a
 * session that accepts events is open (§9.1), new events leave at the end of the turn; after a
 * reconnect everything still unacknowledged is sent again, in order, and the daemon drops what it
 * already stored (§9.4). So nothing is lost across a redial and nothing is stored twice.
 *
 * The buffer holds at most `capacity` events (default 10,000). When the daemon is away long
 * enough to fill it, the oldest events are dropped, counted in `dropped` and logged: a game
 * server must never run out of memory because its daemon is down.
 *
 * An event over `MAX_EVENT_BYTES` of msgpack, nested deeper than `MAX_EVENT_DEPTH` or with no
 * msgpack form, is never sent (§9.6): it
 * is dropped when emitted, takes no sequence number, and is counted in `dropped` and logged. A
 * body holds at most `EVENTS_PER_BODY` events, `MAX_BODY_BYTES` of their msgpack (the daemon's
 * default per-body limit, §9.5) and `MAX_BODY_VALUES` values (§2.2). An event the daemon refused
 * (§9.5: over the rate, a malformed `data`, …) is covered by the ack like a stored one: it is
 * forgotten, counted in `refused` and logged once per ack with its reasons.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_CODEC_LIMITS, encode } from './codec.ts';
import type { EventRefusal, EventsFrame, ModEvent } from './frames.ts';
import { silentLogger, type Logger } from './log.ts';
import { countValues } from './msgpack-scan.ts';

/** One buffered event's msgpack size, and its value count once a body needs it. */
interface Measure {
  bytes: number;
  values: number;
}

export const DEFAULT_OUTBOX_CAPACITY = 10_000;
/** Events per `events` body the outbox sends (the wire allows up to 1,024, §9.2). */
export const EVENTS_PER_BODY = 64;
/** Bytes of events' msgpack per body: the daemon's default `events` body limit (§9.5). */
export const MAX_BODY_BYTES = 512 * 1024;
/** The largest event sent: the daemon's default `maxEventBytes` (§9.5, §9.6). */
export const MAX_EVENT_BYTES = 64 * 1024;
/**
 * Nesting within one event: the codec's `maxDepth` (§2.2) less the three levels around it (the
 * batch array, the body map and its `events` array).
 */
export const MAX_EVENT_DEPTH = DEFAULT_CODEC_LIMITS.maxDepth - 3;
/** Values of events per body: the codec's `maxElements` (§2.2), less room for the body around them. */
export const MAX_BODY_VALUES = DEFAULT_CODEC_LIMITS.maxElements - 16;

export interface EventOutboxOptions {
  /** Most unacknowledged events kept; older ones are dropped first. */
  capacity?: number;
  /** This stream's id (§9.2); a fresh random one by default, which is what a mod process wants. */
  stream?: string;
  log?: Logger;
}

export class EventOutbox {
  readonly stream: string;
  readonly capacity: number;
  #buffer: ModEvent[] = [];
  #seq = 0;
  #sentThrough = 0;
  #dropped = 0;
  #refused = 0;
  readonly #sizes = new WeakMap<ModEvent, Measure>();
  #send: ((body: EventsFrame) => void) | null = null;
  #scheduled = false;
  readonly #log: Logger;

  constructor(options: EventOutboxOptions = {}) {
    this.stream = options.stream ?? randomBytes(12).toString('base64url');
    this.capacity = options.capacity ?? DEFAULT_OUTBOX_CAPACITY;
    if (!Number.isSafeInteger(this.capacity) || this.capacity < 1) {
      throw new RangeError('capacity must be a positive integer');
    }
    this.#log = options.log ?? silentLogger;
  }

  /** Events emitted and not yet acknowledged. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Events dropped because the buffer was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events the daemon acknowledged without storing them (§9.5). */
  get refused(): number {
    return this.#refused;
  }

  /** The sequence number of the last event emitted (0 before the first). */
  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Records one game event (§9.2) and returns its sequence number. `type` is one of the event
   * types (PROTOCOL §9.7); `at` is when it happened, ISO 8601 UTC, now by default. An event that
   * can never be sent (§9.6) is dropped, logged and counted in `dropped`, and 0 is returned.
   */
  emit(type: string, data: Record<string, unknown>, at: string = new Date().toISOString()): number {
    const event: ModEvent = { seq: this.#seq + 1, type, at, data };
    const bytes = measure(event);
    if (typeof bytes === 'string') {
      this.#dropped += 1;
      this.#log.error('event not sent: it can never be (dropped)', { type, reason: bytes });
      return 0;
    }
    this.#seq = event.seq;
    this.#sizes.set(event, { bytes, values: -1 });
    this.#buffer.push(event);
    if (this.#buffer.length > this.capacity) {
      const lost = this.#buffer.splice(0, this.#buffer.length - this.capacity);
      this.#dropped += lost.length;
      this.#log.warn('event buffer full: dropped the oldest unacknowledged events', {
        dropped: lost.length,
        through_seq: lost.at(-1)?.seq,
      });
    }
    this.#schedule();
    return this.#seq;
  }

  /** A session that accepts events opened: send everything unacknowledged, then keep up (§9.4). */
  attach(send: (body: EventsFrame) => void): void {
    this.#send = send;
    this.#sentThrough = 0;
    this.#flush();
  }

  /** The session closed: what was sent and not acknowledged goes again on the next attach. */
  detach(): void {
    this.#send = null;
  }

  /** `events_ack` (§9.3): the daemon handled everything up to `seq`, storing all but `refused`. */
  ack(stream: string, seq: number, refused: readonly EventRefusal[] = []): void {
    if (stream !== this.stream) return;
    if (refused.length > 0) {
      this.#refused += refused.length;
      const reasons: Record<string, number> = {};
      for (const { reason } of refused) reasons[reason] = (reasons[reason] ?? 0) + 1;
      this.#log.warn('the daemon refused events (not stored)', { reasons, first_seq: refused[0]?.seq });
    }
    let count = 0;
    while (count < this.#buffer.length && (this.#buffer[count] as ModEvent).seq <= seq) count += 1;
    if (count > 0) this.#buffer.splice(0, count);
    // An ack that covers nothing pending (a repeat, a seq already forgotten) is harmless (§9.3).
    this.#log.debug('events acknowledged', { stream, seq, forgotten: count, pending: this.#buffer.length });
  }

  #schedule(): void {
    if (this.#scheduled || !this.#send) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    const send = this.#send;
    if (!send) return;
    const start = this.#buffer.findIndex((event) => event.seq > this.#sentThrough);
    if (start === -1) return;
    for (let i = start; i < this.#buffer.length;) {
      const events = this.#buffer.slice(i, i + this.#bodyLength(i));
      i += events.length;
      try {
        send({ t: 'events', stream: this.stream, events });
      } catch (error) {
        // The link is going away: keep everything for the next session.
        if (!(error instanceof RangeError || error instanceof TypeError)) return;
        // A body too large for a frame (or with no msgpack form) can never be sent: drop it
        // rather than block the stream behind it.
        this.#log.error('events could not be sent; dropped', { error: (error as Error).message });
        this.#buffer = this.#buffer.filter((event) => !events.includes(event));
        this.#dropped += events.length;
        i -= events.length;
        continue;
      }
      this.#sentThrough = (events.at(-1) as ModEvent).seq;
      this.#log.debug('events sent', {
        stream: this.stream,
        first_seq: (events[0] as ModEvent).seq,
        last_seq: this.#sentThrough,
        count: events.length,
      });
    }
  }

  /** How many events from `start` make one body: within EVENTS_PER_BODY, MAX_BODY_BYTES, MAX_BODY_VALUES. */
  #bodyLength(start: number): number {
    let bytes = 0;
    let values = 0;
    let count = 0;
    while (count < EVENTS_PER_BODY && start + count < this.#buffer.length) {
      const size = this.#sizeOf(this.#buffer[start + count] as ModEvent);
      bytes += size.bytes;
      // Every value takes a byte at least: only a body past MAX_BODY_VALUES bytes needs the count.
      if (bytes > MAX_BODY_VALUES) values += valuesOf(this.#buffer[start + count] as ModEvent, size);
      else values = bytes;
      if (count > 0 && (bytes > MAX_BODY_BYTES || values > MAX_BODY_VALUES)) break;
      count += 1;
    }
    return count;
  }

  #sizeOf(event: ModEvent): Measure {
    let size = this.#sizes.get(event);
    if (size === undefined) {
      size = { bytes: measure(event) as number, values: -1 };
      this.#sizes.set(event, size);
    }
    return size;
  }
}

/**
 * An event's msgpack size (§9.5), or why it can never be sent (§9.6): no msgpack form, nested
 * deeper than MAX_EVENT_DEPTH, or over MAX_EVENT_BYTES, which the daemon would refuse and which
 * may not even fit a frame.
 */
function measure(event: ModEvent): number | string {
  let bytes: number;
  try {
    bytes = encode(event, MAX_EVENT_DEPTH).length;
  } catch (error) {
    return (error as Error).message;
  }
  return bytes > MAX_EVENT_BYTES ? `${bytes} bytes of msgpack, over ${MAX_EVENT_BYTES}` : bytes;
}

function valuesOf(event: ModEvent, size: Measure): number {
  if (size.values < 0) size.values = countValues(encode(event));
  return size.values;
}
