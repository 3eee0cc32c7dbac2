/**
 * Events: what the game and the daemon report, as the durable log stores them and every reader
 * (the SSE stream, the polling endpoint, the webhook outbox) sees them. Events are a log, not a
 * broadcast: each reader keeps its own position (the last id it has seen), so resuming a stream
 * and retrying a webhook are the same operation: read after that id.
 */

/** Every event type, game events first, then the daemon's own. */
export const EVENT_TYPES = [
  'player.joined',
  'player.left',
  'player.banned',
  'player.unbanned',
  'player.muted',
  'player.unmuted',
  'player.linked',
  'player.unlinked',
  'economy.changed',
  'pack.delivered',
  'claim_code.redeemed',
  'command.executed',
  'mod.connected',
  'mod.disconnected',
  'group.sanction.applied',
  'group.sanction.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * When each type happens, in a few words (docs/events.md's "when" column, shortened): what the
 * panel shows beside each type where an operator chooses what a webhook receives.
 */
export const EVENT_SUMMARIES: Readonly<Record<EventType, string>> = {
  'player.joined': 'a player connects',
  'player.left': 'a player disconnects or is kicked',
  'player.banned': 'a ban is set or changed',
  'player.unbanned': 'a ban is lifted',
  'player.muted': 'a mute is set or changed',
  'player.unmuted': 'a mute is lifted',
  'player.linked': 'a social account is linked',
  'player.unlinked': 'a social account is unlinked',
  'economy.changed': 'a ledger entry is written (coins, currency, shop)',
  'pack.delivered': 'a pack delivery is recorded, with its outcome',
  'claim_code.redeemed': 'a player redeems a claim code in the game',
  'command.executed': 'a console command runs, from any source',
  'mod.connected': "the game mod's link comes up",
  'mod.disconnected': "the game mod's link goes down",
  'group.sanction.applied': "a sanction from the group is applied by this server's game",
  'group.sanction.failed': "this server's game refuses a sanction from the group",
};

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** One event as stored and served: `{id, type, at, data}`. */
export interface StoredEvent {
  /** Daemon-assigned, strictly increasing, starting at 1; never reused, even after retention. */
  readonly id: number;
  readonly type: EventType;
  /** ISO 8601 UTC with milliseconds, when the event happened (the game's clock for game events). */
  readonly at: string;
  /** The payload, in the spec's resource shapes (identity, ban, mute, ledger entry, ...). */
  readonly data: Readonly<Record<string, unknown>>;
}

/** The answer to a read that starts before what retention still holds. */
export interface EventsGone {
  readonly gone: true;
  /** The oldest id still held; a reader may resume from `oldestId - 1`. */
  readonly oldestId: number;
}

/** What readers of the log use. The log itself lives in `log.ts`. */
export interface EventLog {
  /** The highest id stored so far; 0 while the log is empty. */
  lastId(): number;
  /**
   * Stored events with `id > after`, oldest first, at most `limit` of them. `EventsGone` when
   * events after `after` have been dropped by retention (so the reader would miss some).
   */
  readAfter(after: number, limit: number): StoredEvent[] | EventsGone;
  /**
   * Calls `listener` with each event once it is durable (after its fsync), in id order.
   * Returns the unsubscribe function.
   */
  subscribe(listener: (event: StoredEvent) => void): () => void;
}

/** Why an SSE stream (sse-stream.ts) ended, as the final message's `reason`. */
export type CloseReason = 'slow_reader' | 'shutdown' | 'gone';
/**
 * Why the daemon cut a stream: a `stream.closed` reason, or access that no longer holds (here, not
 * in sse-stream.ts, so that the metrics can name it without importing the stream).
 */
export type StreamCutReason = Exclude<CloseReason, 'shutdown'> | 'access_revoked';
