/**
 * The durable event log (events are a log, not a broadcast): every game and daemon event is
 * appended here with a daemon-assigned, strictly increasing id, and fsync'd before anyone sees it:
 * subscribers are told, readers can read it, and the mod gets its acknowledgement only after the
 * fsync. The SSE stream, the polling endpoint and the webhook outbox all read at their own
 * position, so resuming and retrying are the same operation.
 *
 * Appends made in one turn of the event loop share one write and one fsync (group commit).
 * Retention drops whole segments (`segments.ts`) once all their events are older than `maxAgeMs`
 * or outside the newest `maxEvents`; a read that starts before what is still held gets
 * `EventsGone`. Memory holds only a byte offset per event; events are read back from the files.
 *
 * A segment also rolls over once it holds `segmentBytes`, and every reader (start-up, the SSE
 * catch-up, polling, the webhook outbox) reads line by line with a maximum line length
 * (segment-reader.ts, segment-lines.ts): a line past it, or one that is not an event, is
 * skipped, counted and logged, never fatal.
 *
 * A write that fails (a full disk) is not given up: the segment is cut back to its last complete
 * line and the same events are written again after a backoff (1 s doubling to a minute), held in
 * memory meanwhile, so they are only late (a mod gets its ack once they are durable). While it
 * fails, at most `maxPendingBytes` wait; an append past that is refused at once and counted as
 * lost. Once a write succeeds the log says so and how many were lost (docs/events.md, "When the
 * disk is full"); what still waits at shutdown is lost and said too.
 */
import { rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../log/log.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import { ensureFolder, FILE_MODE, syncFolder } from '../store/atomic-file.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import type { StorageHealth } from '../storage-health.ts';
import { loadSegments } from './segment-load.ts';
import { SegmentReader } from './segment-reader.ts';
import {
  EVENTS_FOLDER,
  eventLine,
  headerLine,
  segmentLastId,
  segmentName,
  touchStream,
  type EventLine,
  type EventSource,
  type Segment,
} from './segments.ts';
import type { EventLog, EventsGone, EventType, StoredEvent } from './types.ts';

export const DEFAULT_RETENTION = Object.freeze({ maxEvents: 1_000_000, maxAgeMs: 7 * 24 * 60 * 60 * 1000 });
/** Events per segment file; retention granularity. */
export const DEFAULT_SEGMENT_EVENTS = 10_000;
/** A segment rolls over at this many bytes too, whatever its count. */
export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
/**
 * The longest line any reader reads; longer ones are skipped. An event the daemon accepts is at
 * most 64 KiB of msgpack (PROTOCOL §9.5), at most six times that as JSON: well within.
 */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/** After a failed write, the next attempt waits 1 s, doubling to a minute. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** While writes fail, at most this many bytes of events wait in memory for the disk. */
export const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** The name under which a failing event log shows in /healthz `storage_faults`. */
export const EVENTS_STORE = 'events';
/** How many mod streams' sequences are remembered (a stream is one run of a mod process). */
export const MAX_STREAMS = 64;
/** The retention check runs at most this often, and only while the log holds an event. */
const RETENTION_CHECK_MS = 60_000;
/** setTimeout's longest delay; a later due time is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How much of the log is kept (docs/events.md); defaults 1,000,000 events / 7 days. */
export type EventRetention = Pick<
  EventLogOptions,
  'maxEvents' | 'maxAgeMs' | 'segmentEvents' | 'segmentBytes' | 'maxLineBytes'
>;

export interface EventLogOptions {
  maxEvents?: number;
  maxAgeMs?: number;
  /** Events per segment; defaults to min(10,000, a tenth of maxEvents). */
  segmentEvents?: number;
  /** Bytes per segment before it rolls over; default 64 MiB. */
  segmentBytes?: number;
  /** The longest line a reader reads; default 1 MiB. */
  maxLineBytes?: number;
  /** While writes fail, the most bytes of events held for the retry; default 16 MiB. */
  maxPendingBytes?: number;
  now?: () => number;
  log?: Logger;
  metrics?: Pick<DaemonMetrics, 'eventLineSkipped' | 'eventsNotStored' | 'eventIdsLost'>;
  /** Told when writes fail and when they succeed again (/healthz, doctor). */
  health?: StorageHealth;
}

export interface AppendInput {
  type: EventType;
  data: Record<string, unknown>;
  /** When it happened; defaults to now. */
  at?: string;
  /** The mod stream and sequence it came with (PROTOCOL §9); a repeat is dropped. */
  source?: EventSource;
}

type Listener = (event: StoredEvent) => void;

/** One queued append and how to settle its promise. */
interface PendingLine {
  line: EventLine;
  text: string;
  /** Settles with the append: resolved once durable, rejected if it never will be. */
  done: Promise<StoredEvent>;
  resolve: (event: StoredEvent) => void;
  reject: (error: Error) => void;
}

/** A page of the log: the readable events, and the last id looked at (skipped lines included). */
export interface LogPage {
  events: StoredEvent[];
  through: number;
}

export class FileEventLog implements EventLog {
  readonly folder: string;
  #segments: Segment[] = [];
  #nextId = 1;
  #durableId = 0;
  #streams = new Map<string, number>();
  #handle: FileHandle | null = null;
  #pending: PendingLine[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #scheduled = false;
  /** The next retention check, armed for when the oldest event held passes the age limit. */
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Set while writes fail: the next attempt's delay, and what was lost since the first. */
  #failure: { error: Error; delayMs: number; lost: number; since: number } | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #pendingBytes = 0;
  /** The active segment may end in part of a line: cut it before the next write. */
  #dirtyTail = false;
  readonly #reader: SegmentReader;
  readonly #listeners = new Set<Listener>();
  readonly #maxEvents: number;
  readonly #maxAgeMs: number;
  readonly #segmentEvents: number;
  readonly #segmentBytes: number;
  readonly #maxLineBytes: number;
  readonly #maxPendingBytes: number;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #metrics: EventLogOptions['metrics'];
  readonly #health: StorageHealth | undefined;

  private constructor(dataDir: string, options: EventLogOptions) {
    this.folder = join(dataDir, EVENTS_FOLDER);
    this.#maxEvents = positive(options.maxEvents ?? DEFAULT_RETENTION.maxEvents, 'maxEvents');
    this.#maxAgeMs = positive(options.maxAgeMs ?? DEFAULT_RETENTION.maxAgeMs, 'maxAgeMs');
    this.#segmentEvents = positive(
      options.segmentEvents ??
        Math.max(1, Math.min(DEFAULT_SEGMENT_EVENTS, Math.floor(this.#maxEvents / 10))),
      'segmentEvents',
    );
    this.#segmentBytes = positive(options.segmentBytes ?? DEFAULT_SEGMENT_BYTES, 'segmentBytes');
    this.#maxLineBytes = positive(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, 'maxLineBytes');
    this.#maxPendingBytes = positive(options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES, 'maxPendingBytes');
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
    this.#metrics = options.metrics;
    this.#health = options.health;
    this.#reader = new SegmentReader(this.folder, this.#maxLineBytes, this.#log, this.#metrics);
  }

  static async open(dataDir: string, options: EventLogOptions = {}): Promise<FileEventLog> {
    const eventLog = new FileEventLog(dataDir, options);
    await ensureFolder(eventLog.folder);
    const loaded = await loadSegments(eventLog.folder, eventLog.#log, eventLog.#maxLineBytes);
    for (const id of loaded.unreadable) eventLog.#reader.skipped(id, 'start-up');
    if (loaded.lost.length > 0) eventLog.#metrics?.eventIdsLost(loaded.lost.length);
    eventLog.#segments = loaded.segments;
    eventLog.#nextId = loaded.nextId;
    eventLog.#durableId = loaded.nextId - 1;
    eventLog.#streams = loaded.streams;
    try {
      const active = eventLog.#active();
      if (active && segmentLastId(active) === eventLog.#durableId) {
        eventLog.#handle = await openDataFile(join(eventLog.folder, active.name), 'append');
      } else {
        await eventLog.#startSegment();
      }
      await eventLog.#applyRetention();
    } catch (error) {
      await eventLog.close(); // a start that fails leaves no file open (daemon/opened-so-far.ts)
      throw error;
    }
    eventLog.#scheduleRetention();
    return eventLog;
  }

  lastId(): number {
    return this.#durableId;
  }

  /** The oldest id still held (lastId() + 1 while nothing is held). */
  oldestId(): number {
    return this.#segments[0]?.firstId ?? this.#nextId;
  }

  /** The highest sequence stored from a mod stream, 0 for a stream never seen. */
  streamSeq(stream: string): number {
    return this.#streams.get(stream) ?? 0;
  }

  /**
   * Readable events after `after`, at most `limit`. Unreadable lines are skipped: a page is empty
   * only when nothing readable is left, so a reader never stalls on one.
   */
  readAfter(after: number, limit: number): StoredEvent[] | EventsGone {
    let from = after;
    for (;;) {
      const page = this.readPage(from, limit);
      if (!('events' in page)) return page;
      if (page.events.length > 0 || page.through >= this.#durableId || page.through === from)
        return page.events;
      from = page.through;
    }
  }

  /**
   * The events of ids `after + 1` to `after + limit` that can be read, and the last id looked at:
   * a reader that keeps its position moves it to `through`, past lines that were skipped.
   */
  readPage(after: number, limit: number): LogPage | EventsGone {
    const oldest = this.oldestId();
    if (after < oldest - 1) return { gone: true, oldestId: oldest };
    const events: StoredEvent[] = [];
    let from = Math.max(after + 1, oldest);
    const to = Math.min(this.#durableId, from + Math.max(0, limit) - 1);
    let through = Math.max(after, Math.min(from - 1, this.#durableId));
    while (from <= to) {
      const segment = this.#segmentOf(from);
      if (!segment) break;
      const last = Math.min(to, segmentLastId(segment));
      for (const line of this.#reader.read(segment, from, last)) events.push(served(line));
      through = last;
      from = last + 1;
    }
    return { events, through };
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Assigns the next id and queues the event; resolves with it once it is durable. An event whose
   * source sequence was already stored (or is waiting to be) resolves with null once that one is
   * durable, and is not stored again. While writes fail and `maxPendingBytes` already wait, it
   * is refused at once and counted as lost.
   */
  append(input: AppendInput): Promise<StoredEvent | null> {
    const { source } = input;
    if (source && source.seq <= this.streamSeq(source.stream)) {
      return (this.#pending.at(-1)?.done ?? this.flushed()).then(() => null);
    }
    const line: EventLine = {
      id: this.#nextId,
      type: input.type,
      at: input.at ?? new Date(this.#now()).toISOString(),
      data: input.data,
      stored: this.#now(),
      ...(source ? { src: { stream: source.stream, seq: source.seq } } : {}),
    };
    const text = eventLine(line);
    const failure = this.#failure;
    if (failure && this.#pendingBytes + Buffer.byteLength(text) > this.#maxPendingBytes) {
      failure.lost += 1;
      this.#metrics?.eventsNotStored(1);
      return Promise.reject(failure.error);
    }
    this.#nextId += 1;
    if (source) {
      touchStream(this.#streams, source.stream, source.seq);
      while (this.#streams.size > MAX_STREAMS)
        this.#streams.delete(this.#streams.keys().next().value as string);
    }
    this.#queue(line, text);
    return (this.#pending.at(-1) as PendingLine).done;
  }

  #queue(line: EventLine, text: string): void {
    let resolve!: PendingLine['resolve'];
    let reject!: PendingLine['reject'];
    const done = new Promise<StoredEvent>((onStored, onLost) => {
      resolve = onStored;
      reject = onLost;
    });
    done.catch(() => {}); // the appender handles it; a repeat waiting on it may be the only other
    this.#pending.push({ line, text, done, resolve, reject });
    this.#pendingBytes += Buffer.byteLength(text);
    if (this.#scheduled || this.#failure) return; // a failing log flushes on its retry timer
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flushing = this.#flushing.then(() => this.#flush());
    });
  }

  /** Resolves once everything appended so far is durable (or the log is failing). */
  flushed(): Promise<void> {
    return this.#flushing;
  }

  /**
   * Resolves once every event appended so far is durable, even while writes fail and are retried:
   * what a mod's repeat of an event still waiting for the disk is acknowledged after (PROTOCOL
   * §9.3). Rejects if the last of them never will be (lost at shutdown).
   */
  durable(): Promise<void> {
    const last = this.#pending.at(-1);
    return last ? last.done.then(() => undefined) : Promise.resolve();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.#flushing;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#lostAtShutdown();
    await this.#handle?.close();
    this.#handle = null;
    this.#listeners.clear();
    this.#reader.close();
  }

  /**
   * One write and one fsync for everything queued, rolling to a new segment when one is full (by
   * count or by bytes). A failure keeps the events queued for the retry and never rejects: the
   * chain of flushes goes on.
   */
  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#nextBatch();
      try {
        const active = await this.#writable();
        const text = Buffer.from(batch.map((entry) => entry.text).join(''));
        await writeAt(this.#handle as FileHandle, text, active.offsets.at(-1) as number);
        await this.#handle?.sync();
        this.#pending.splice(0, batch.length);
        this.#recorded(active, batch);
      } catch (error) {
        this.#failed(error as Error);
        return;
      }
    }
  }

  /** The queued lines that fit the active segment (by count and bytes); at least one. */
  #nextBatch(): PendingLine[] {
    const active = this.#active();
    const used = active ? active.offsets.length - 1 : this.#segmentEvents;
    const room = Math.max(1, this.#segmentEvents - used);
    let bytes = active ? (active.offsets.at(-1) as number) : 0;
    let count = 0;
    while (count < Math.min(room, this.#pending.length)) {
      bytes += Buffer.byteLength((this.#pending[count] as PendingLine).text);
      if (count > 0 && bytes > this.#segmentBytes) break;
      count += 1;
    }
    return this.#pending.slice(0, count);
  }

  /** The active segment, cut back to its last line after a failed write, or a new one when full. */
  async #writable(): Promise<Segment> {
    let active = this.#active();
    if (active && this.#dirtyTail) {
      await this.#handle?.truncate(active.offsets.at(-1) as number);
      this.#dirtyTail = false;
    }
    const full =
      !active ||
      active.offsets.length - 1 >= this.#segmentEvents ||
      (active.offsets.length > 1 && (active.offsets.at(-1) as number) >= this.#segmentBytes);
    if (full) {
      await this.#startSegment();
      await this.#applyRetention();
      active = this.#active() as Segment;
    }
    return active as Segment;
  }

  /** A batch is durable: index it, tell its appenders and subscribers, end a failure. */
  #recorded(active: Segment, batch: PendingLine[]): void {
    let end = active.offsets.pop() as number;
    for (const entry of batch) {
      active.offsets.push(end);
      end += Buffer.byteLength(entry.text);
    }
    active.offsets.push(end);
    active.lastStored = (batch.at(-1) as PendingLine).line.stored;
    if (!this.#timer) this.#scheduleRetention(); // the first event held since the log was empty
    if (this.#failure) this.#resumed();
    for (const { line, text, resolve } of batch) {
      this.#pendingBytes -= Buffer.byteLength(text);
      this.#durableId = line.id;
      const event = served(line);
      resolve(event);
      this.#notify(event);
    }
  }

  /**
   * A write failed (a full disk): the events stay queued, the segment is cut back to its last
   * complete line before the next write, and the next write is tried after a backoff.
   */
  #failed(error: Error): void {
    this.#dirtyTail = true;
    const delayMs = this.#failure ? Math.min(RETRY_MAX_MS, this.#failure.delayMs * 2) : RETRY_MIN_MS;
    const first = this.#failure === null;
    this.#failure = {
      error,
      delayMs,
      lost: this.#failure?.lost ?? 0,
      since: this.#failure?.since ?? this.#now(),
    };
    const waiting = { events_waiting: this.#pending.length, retry_in_ms: delayMs };
    if (first) {
      this.#health?.fault(EVENTS_STORE, error, waiting);
      this.#log.error('event log: append failed; the events wait in memory and the write is retried', {
        error: error.message,
        ...waiting,
      });
    }
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.#flushing = this.#flushing.then(() => this.#flush());
    }, delayMs);
  }

  /** Shutdown while writes fail: what still waits is lost, and said. */
  #lostAtShutdown(): void {
    const lost = this.#pending.splice(0);
    if (lost.length === 0) return;
    const error = this.#failure?.error ?? new Error('event log closed');
    this.#metrics?.eventsNotStored(lost.length);
    this.#log.error('event log: events not stored, lost at shutdown', {
      events_lost: lost.length,
      error: error.message,
    });
    for (const entry of lost) entry.reject(error);
    this.#pendingBytes = 0;
  }

  /** A write succeeded after failures: say so, and what was lost meanwhile. */
  #resumed(): void {
    const failure = this.#failure;
    if (!failure) return;
    this.#failure = null;
    const fields = { events_lost: failure.lost, failing_since: new Date(failure.since).toISOString() };
    this.#log.warn('event log: appends resumed', fields);
    this.#health?.recovered(EVENTS_STORE, fields);
  }

  #notify(event: StoredEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#log.error('event log: a subscriber threw', { error: (error as Error).message });
      }
    }
  }

  async #startSegment(): Promise<void> {
    await this.#handle?.close();
    const firstId = this.#durableId + 1;
    const name = segmentName(firstId);
    const handle = await openDataFile(join(this.folder, name), 'replace');
    const header = headerLine(firstId, this.#streams);
    try {
      await handle.chmod(FILE_MODE);
      await handle.writeFile(header);
      await handle.sync();
      await syncFolder(this.folder);
    } catch (error) {
      // A full disk fails here and is retried: each try must not leave a descriptor behind.
      await handle.close();
      throw error;
    }
    this.#handle = handle;
    this.#segments = this.#segments.filter((segment) => segment.name !== name);
    this.#segments.push({ name, firstId, offsets: [Buffer.byteLength(header)], lastStored: 0 });
  }

  async #retentionTick(): Promise<void> {
    this.#timer = null;
    this.#flushing = this.#flushing.then(() =>
      this.#applyRetention().catch((error: unknown) =>
        this.#log.error('event log: retention failed; retried in a minute', {
          error: (error as Error).message,
        }),
      ),
    );
    await this.#flushing;
    this.#scheduleRetention();
  }

  /**
   * Arms the retention check for when the oldest event held passes the age limit (a minute apart
   * at least, as a failed check is retried), or none while the log holds no event: an empty log
   * costs an idle daemon no timer. The count limit is applied as events are appended.
   */
  #scheduleRetention(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const stored = this.#segments.map((segment) => segment.lastStored).filter((at) => at > 0);
    if (this.#closed || stored.length === 0) return;
    const due = Math.min(...stored) + this.#maxAgeMs - this.#now();
    const delay = Math.min(Math.max(due, RETENTION_CHECK_MS), MAX_TIMER_MS);
    this.#timer = setTimeout(() => void this.#retentionTick(), delay).unref();
  }

  /** Deletes the oldest segments whose every event is past retention; never the active one. */
  async #applyRetention(): Promise<void> {
    const cutoff = this.#now() - this.#maxAgeMs;
    const dropped: Segment[] = [];
    while (this.#segments.length > 1) {
      const oldest = this.#segments[0] as Segment;
      const lastId = segmentLastId(oldest);
      const tooMany = this.#durableId - lastId >= this.#maxEvents;
      const tooOld = oldest.lastStored > 0 && oldest.lastStored < cutoff;
      const empty = oldest.offsets.length === 1;
      if (!tooMany && !tooOld && !empty) break;
      this.#segments.shift();
      dropped.push(oldest);
    }
    const active = this.#active();
    if (active && this.#segments.length === 1 && active.lastStored > 0 && active.lastStored < cutoff) {
      // Everything held is too old: start a fresh segment so the old one can go.
      await this.#startSegment();
      this.#segments.shift();
      dropped.push(active);
    }
    for (const segment of dropped) await rm(join(this.folder, segment.name), { force: true });
    if (dropped.length > 0) {
      await syncFolder(this.folder);
      this.#log.info('event log: retention dropped events', {
        through_id: segmentLastId(dropped.at(-1) as Segment),
        oldest_id: this.oldestId(),
      });
    }
  }

  #active(): Segment | undefined {
    return this.#segments.at(-1);
  }

  #segmentOf(id: number): Segment | undefined {
    let low = 0;
    let high = this.#segments.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const segment = this.#segments[mid] as Segment;
      if (id < segment.firstId) high = mid - 1;
      else if (id > segmentLastId(segment)) low = mid + 1;
      else return segment;
    }
    return undefined;
  }
}

/** The event as served: `{id, type, at, data}` only. */
function served(line: EventLine): StoredEvent {
  return { id: line.id, type: line.type, at: line.at, data: line.data };
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/**
 * Writes all of `bytes` at `position`: the end of the last complete line, which after a failed
 * write is where the segment was cut back to (a new segment's handle is not in append mode).
 */
async function writeAt(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, position + written);
    written += bytesWritten;
  }
}
