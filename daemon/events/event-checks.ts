/**
 * What the daemon checks in each game event a mod sends before it is stored (PROTOCOL §9.5):
 * a type it knows and that a mod may report, a size within the limits, the rate, a valid `at`,
 * and `data` of the type's shape (event-schemas.ts). An event that fails is refused: it is not
 * stored, the ack still covers it, and the ack's `refused` names it with the reason. Only the
 * shape of the body itself (PROTOCOL §9.2 rule 4, frames.ts) closes the link.
 */
import type { EventRefusal, EventRefusalReason, ModEvent } from '../../protocol/frames.ts';
import { encodedEventBytes, type EventLimits, type EventRateLimit } from './event-limits.ts';
import { DAEMON_EVENT_TYPES, parseEventData, type GameEventType } from './event-schemas.ts';
import { isEventType } from './types.ts';

/** An event that passed every check, ready to append. */
export interface CheckedEvent {
  seq: number;
  type: GameEventType;
  /** `at` normalised to ISO 8601 UTC with milliseconds. */
  at: string;
  data: Record<string, unknown>;
}

export interface CheckedBatch {
  accepted: CheckedEvent[];
  refused: (EventRefusal & { reason: EventRefusalReason })[];
}

/**
 * PROTOCOL §9.2 rule 3: ISO 8601 with a date, a time to the second (fractions optional) and an
 * offset (`Z` or ±hh:mm). Anything else, or a date that does not exist, is `invalid_at`.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function normaliseAt(at: string): string | null {
  if (!ISO_INSTANT.test(at)) return null;
  const time = Date.parse(at);
  return Number.isNaN(time) || !dayExists(at) ? null : new Date(time).toISOString();
}

/** Date.parse rolls 2025-02-30 over to March 2: a day that does not exist is refused. */
function dayExists(at: string): boolean {
  const [year, month, day] = at.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

/**
 * Checks the events of one body, in order, against `limits` and the link's rate. `repeat(seq)`
 * says an event is already stored (PROTOCOL §9.3): it is neither checked nor charged.
 */
export function checkEvents(
  events: readonly ModEvent[],
  limits: EventLimits,
  rate: EventRateLimit,
  repeat: (seq: number) => boolean,
): CheckedBatch {
  const accepted: CheckedEvent[] = [];
  const refused: CheckedBatch['refused'] = [];
  let batchBytes = 0;
  for (const event of events) {
    if (repeat(event.seq)) continue;
    const bytes = encodedEventBytes(event);
    batchBytes += bytes;
    const outcome = checkEvent(event, bytes, batchBytes, limits, rate);
    if (typeof outcome === 'string') refused.push({ seq: event.seq, reason: outcome });
    else accepted.push(outcome);
  }
  return { accepted, refused };
}

function checkEvent(
  event: ModEvent,
  bytes: number,
  batchBytes: number,
  limits: EventLimits,
  rate: EventRateLimit,
): CheckedEvent | EventRefusalReason {
  const { type } = event;
  if (!isEventType(type)) return 'unknown_type';
  if (DAEMON_EVENT_TYPES.has(type)) return 'reserved_type';
  if (bytes > limits.maxEventBytes) return 'event_too_large';
  if (batchBytes > limits.maxBatchBytes) return 'batch_too_large';
  if (!rate.admit(bytes)) return 'rate_limited';
  const at = normaliseAt(event.at);
  if (at === null) return 'invalid_at';
  const gameType = type as GameEventType;
  const data = parseEventData(gameType, event.data);
  if (data === null) return 'invalid_data';
  return { seq: event.seq, type: gameType, at, data };
}
