/**
 * One Server-Sent Events stream of the event log (docs/events.md): it starts after the client's
 * position, catches up from the log, then follows live events as they become durable, so a
 * resumed stream has no gap and no duplicate. Each event is one SSE message (`id:` the event id,
 * `event:` its type, `data:` the JSON `{id, type, at, data}`); comments keep idle connections
 * alive. A client that reads too slowly is never buffered without bound: once more than
 * `maxBufferedBytes` wait in its socket, it gets a final `stream.closed` message saying why and
 * the stream ends; a daemon shutdown ends every stream the same way. A stream whose access lapses
 * (a revoked or expired key, the API switched off: the pipeline re-checks, docs/events.md) ends
 * with a final `event: error` message carrying the error envelope a new request would get.
 */
import type { ResponseStream, StreamSink } from '../http/types.ts';
import type { FileEventLog } from './event-log.ts';
import type { EventView } from './payloads.ts';
import type { CloseReason, EventType, StoredEvent, StreamCutReason } from './types.ts';

export const STREAM_DEFAULTS = Object.freeze({
  heartbeatMs: 15_000,
  /**
   * 256 KiB: four times the catch-up high-water mark, a few hundred events behind; 1,024 streams
   * (every connection) at the bound hold 256 MiB.
   */
  maxBufferedBytes: 262_144,
  /** How long a cut stream may take to drain its final message before its socket is destroyed. */
  closeGraceMs: 5_000,
});

export interface StreamSettings {
  heartbeatMs: number;
  maxBufferedBytes: number;
}

export interface EventStreamOptions extends Partial<StreamSettings> {
  eventLog: FileEventLog;
  /** The last id the client has (0 for everything held). */
  after: number;
  /** Only these types (all when null); the position still moves past the others. */
  types: ReadonlySet<EventType> | null;
  view: EventView;
  /** Told +1 when the stream starts and -1 once when it ends (the subscribers gauge). */
  subscribers?: (delta: 1 | -1) => void;
  /** Told once when the daemon cuts the stream for a reason other than shutdown (a metric). */
  cut?: (reason: StreamCutReason) => void;
}

const CATCH_UP_PAGE = 256;
/**
 * Catching up pauses while this much waits for the client and goes on when it has drained, so a
 * replay of a long backlog follows the client's pace instead of tripping the slow-reader limit.
 */
const CATCH_UP_HIGH_WATER = 64 * 1024;
const MESSAGES: Record<CloseReason, string> = {
  slow_reader: 'The client read too slowly; reconnect with Last-Event-ID to resume.',
  shutdown: 'The daemon is shutting down; reconnect with Last-Event-ID to resume.',
  gone: 'Events after this position were dropped by retention while the client caught up.',
};

const frames = new WeakMap<StoredEvent, Map<EventView, string>>();

/**
 * The text of one SSE message. The log hands every subscriber the same event object, so the
 * text is built once per event and view and shared by every stream (the fan-out stays cheap).
 */
export function sseMessage(event: StoredEvent, view: EventView): string {
  let byView = frames.get(event);
  if (!byView) frames.set(event, (byView = new Map()));
  let text = byView.get(view);
  if (text === undefined) {
    text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(view(event))}\n\n`;
    byView.set(view, text);
  }
  return text;
}

export class EventStream implements ResponseStream {
  #position: number;
  #sink: StreamSink | null = null;
  #unsubscribe: (() => void) | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #ended = false;
  #counted = false;
  readonly #settings: StreamSettings;
  readonly #options: EventStreamOptions;

  constructor(options: EventStreamOptions) {
    this.#options = options;
    this.#position = options.after;
    this.#settings = {
      heartbeatMs: options.heartbeatMs ?? STREAM_DEFAULTS.heartbeatMs,
      maxBufferedBytes: options.maxBufferedBytes ?? STREAM_DEFAULTS.maxBufferedBytes,
    };
  }

  /** The last id written to the client. */
  get position(): number {
    return this.#position;
  }

  start(sink: StreamSink): void {
    this.#sink = sink;
    this.#counted = true;
    this.#options.subscribers?.(1);
    sink.onClose(() => this.#stop());
    sink.onDrain(() => this.#catchUp());
    // Browsers' EventSource waits `retry` ms before reconnecting with Last-Event-ID.
    sink.write(`retry: 2000\n: position ${this.#position}\n\n`);
    this.#unsubscribe = this.#options.eventLog.subscribe((event) => this.#onLive(event));
    this.#heartbeat = setInterval(() => this.#write(': heartbeat\n\n'), this.#settings.heartbeatMs);
    this.#heartbeat.unref();
    this.#catchUp();
  }

  /** Never started: nothing to release (the subscription begins with start). */
  abandon(): void {
    this.#ended = true;
  }

  /** Ends the stream with a final `stream.closed` message (shutdown, or a reader left behind). */
  close(reason: CloseReason): void {
    const final = { reason, message: MESSAGES[reason], last_id: this.#position };
    this.#finish(`event: stream.closed\ndata: ${JSON.stringify(final)}\n\n`, reason);
  }

  /** Ends the stream with a final `event: error` message: its access no longer holds. */
  revoke(envelope: string): void {
    this.#finish(`event: error\ndata: ${envelope}\n\n`, 'access_revoked');
  }

  #finish(message: string, reason: CloseReason | StreamCutReason): void {
    const sink = this.#sink;
    if (this.#ended || !sink) return;
    // Written past the slow-reader bound if need be: one message, then the end.
    sink.write(message);
    this.#stop();
    if (reason !== 'shutdown') this.#options.cut?.(reason);
    sink.end(STREAM_DEFAULTS.closeGraceMs);
  }

  /**
   * The next durable event: written at once when it is the next one, else left to the catch-up
   * (which is paused while the client drains). A live event that finds the client more than
   * `maxBufferedBytes` behind cuts the stream.
   */
  #onLive(event: StoredEvent): void {
    if (this.#ended || event.id <= this.#position) return;
    if (event.id === this.#position + 1) this.#deliver(event);
    else if (this.#congested()) this.close('slow_reader');
    else this.#catchUp();
  }

  /** Reads the log from the position onwards, pausing while the client has a backlog. */
  #catchUp(): void {
    while (!this.#ended && this.#position < this.#options.eventLog.lastId()) {
      if ((this.#sink?.bufferedBytes() ?? 0) > CATCH_UP_HIGH_WATER) return; // onDrain resumes
      const page = this.#options.eventLog.readPage(this.#position, CATCH_UP_PAGE);
      if (!('events' in page)) return this.close('gone');
      if (page.through <= this.#position) return;
      for (const event of page.events) {
        if (this.#ended) return;
        this.#deliver(event);
        if ((this.#sink?.bufferedBytes() ?? 0) > CATCH_UP_HIGH_WATER) return;
      }
      // Past the page's unreadable lines too (the log skipped and counted them).
      this.#position = Math.max(this.#position, page.through);
    }
  }

  #deliver(event: StoredEvent): void {
    if (this.#congested()) return this.close('slow_reader');
    this.#position = event.id;
    if (this.#options.types && !this.#options.types.has(event.type)) return;
    this.#sink?.write(sseMessage(event, this.#options.view));
  }

  #congested(): boolean {
    return (this.#sink?.bufferedBytes() ?? 0) > this.#settings.maxBufferedBytes;
  }

  #write(text: string): void {
    const sink = this.#sink;
    if (this.#ended || !sink) return;
    if (this.#congested()) return this.close('slow_reader');
    sink.write(text);
  }

  #stop(): void {
    this.#ended = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    // Both close() and the socket's close end here: the gauge goes down once.
    if (this.#counted) this.#options.subscribers?.(-1);
    this.#counted = false;
  }
}
