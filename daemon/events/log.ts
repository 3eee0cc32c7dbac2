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
 * catch-up, polling, the webhook outbox) reads line by line with a maximum line length: a line
 * past it, or one that is not an event, is skipped, counted and logged, never fatal.
 *
 * A write that fails (a full disk) loses the events of that write, says how many, and cuts the
 * segment back to its last complete line; the log then retries with a backoff (from 1 s to a
 * minute) on the next append, and once a write succeeds it says so and how many were lost in
 * between (docs/events.md, "When the disk is full"). A mod's events that were not stored are
 * not acknowledged, so the mod sends them again.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../log.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import { ensureFolder, FILE_MODE, syncFolder } from '../store/atomic-file.ts';
import type { StorageHealth } from '../storage-health.ts';
import { IntervalReport } from './interval-report.ts';
import {
  EVENTS_FOLDER,
  eventLine,
  headerLine,
  loadSegments,
  parseEventLine,
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
/** One positioned read takes at most this many bytes of consecutive lines. */
const READ_CHUNK_BYTES = 1024 * 1024;
/** After a failed write, the next attempt waits 1 s, doubling to a minute. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** Unreadable ids remembered so each is counted once (a bound, not an expectation). */
const MAX_UNREADABLE_REMEMBERED = 100_000;
/** The name under which a failing event log shows in /healthz `storage_faults`. */
export const EVENTS_STORE = 'events';
/** How many mod streams' sequences are remembered (a stream is one run of a mod process). */
export const MAX_STREAMS = 64;
const RETENTION_CHECK_MS = 60_000;

export interface EventLogOptions {
  maxEvents?: number;
  maxAgeMs?: number;
  /** Events per segment; defaults to min(10,000, a tenth of maxEvents). */
  segmentEvents?: number;
  /** Bytes per segment before it rolls over; default 64 MiB. */
  segmentBytes?: number;
  /** The longest line a reader reads; default 1 MiB. */
  maxLineBytes?: number;
  now?: () => number;
  log?: Logger;
  metrics?: Pick<DaemonMetrics, 'eventLineSkipped' | 'eventsNotStored'>;
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
  /** The stream's sequence before this line, to roll back if it is not stored. */
  previousSeq: number | null;
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
  #timer: NodeJS.Timeout | null = null;
  /** Set while writes fail: when the next may be tried, and what was lost since. */
  #failure: { error: Error; retryAt: number; delayMs: number; lost: number; since: number } | null = null;
  /** The active segment may end in part of a line: cut it before the next write. */
  #dirtyTail = false;
  /** Ids whose lines cannot be read; each is counted and logged once. */
  readonly #unreadable = new Set<number>();
  readonly #skipReport: IntervalReport;
  readonly #listeners = new Set<Listener>();
  readonly #maxEvents: number;
  readonly #maxAgeMs: number;
  readonly #segmentEvents: number;
  readonly #segmentBytes: number;
  readonly #maxLineBytes: number;
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
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
    this.#metrics = options.metrics;
    this.#health = options.health;
    this.#skipReport = new IntervalReport(this.#log, 'event log: unreadable lines skipped');
  }

  static async open(dataDir: string, options: EventLogOptions = {}): Promise<FileEventLog> {
    const eventLog = new FileEventLog(dataDir, options);
    await ensureFolder(eventLog.folder);
    const loaded = await loadSegments(eventLog.folder, eventLog.#log, eventLog.#maxLineBytes);
    for (const id of loaded.unreadable) eventLog.#skipped(id, 'start-up');
    eventLog.#segments = loaded.segments;
    eventLog.#nextId = loaded.nextId;
    eventLog.#durableId = loaded.nextId - 1;
    eventLog.#streams = loaded.streams;
    const active = eventLog.#active();
    if (active && segmentLastId(active) === eventLog.#durableId) {
      eventLog.#handle = await open(join(eventLog.folder, active.name), 'a', FILE_MODE);
    } else {
      await eventLog.#startSegment();
    }
    await eventLog.#applyRetention();
    eventLog.#timer = setInterval(() => void eventLog.#retentionTick(), RETENTION_CHECK_MS).unref();
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
      for (const line of this.#readLines(segment, from, last)) events.push(served(line));
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
   * source sequence was already stored resolves with null and is not stored again. While writes
   * fail and the next attempt is not due yet, it is refused at once (and counted as lost).
   */
  append(input: AppendInput): Promise<StoredEvent | null> {
    const failure = this.#failure;
    if (failure && this.#now() < failure.retryAt) {
      failure.lost += 1;
      this.#metrics?.eventsNotStored(1);
      return Promise.reject(failure.error);
    }
    const { source } = input;
    let previousSeq: number | null = null;
    if (source) {
      if (source.seq <= this.streamSeq(source.stream)) return this.flushed().then(() => null);
      previousSeq = this.streamSeq(source.stream);
      touchStream(this.#streams, source.stream, source.seq);
      while (this.#streams.size > MAX_STREAMS)
        this.#streams.delete(this.#streams.keys().next().value as string);
    }
    const line: EventLine = {
      id: this.#nextId++,
      type: input.type,
      at: input.at ?? new Date(this.#now()).toISOString(),
      data: input.data,
      stored: this.#now(),
      ...(source ? { src: { stream: source.stream, seq: source.seq } } : {}),
    };
    const stored = new Promise<StoredEvent>((resolve, reject) => {
      this.#pending.push({ line, text: eventLine(line), previousSeq, resolve, reject });
    });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flushing = this.#flushing.then(() => this.#flush());
      });
    }
    return stored;
  }

  /** Resolves once everything appended so far is durable (or failed). */
  flushed(): Promise<void> {
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.#flushing;
    await this.#handle?.close();
    this.#handle = null;
    this.#listeners.clear();
    this.#skipReport.close();
  }

  /**
   * One write and one fsync for everything queued, rolling to a new segment when one is full (by
   * count or by bytes). A failure settles what was queued as not stored and never rejects: the
   * chain of flushes goes on.
   */
  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#nextBatch();
      try {
        const active = await this.#writable();
        await this.#handle?.appendFile(batch.map((entry) => entry.text).join(''));
        await this.#handle?.sync();
        this.#recorded(active, batch);
      } catch (error) {
        await this.#failed(error as Error, [...batch, ...this.#pending.splice(0)]);
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
    return this.#pending.splice(0, count);
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
    if (this.#failure) this.#resumed();
    for (const { line, resolve } of batch) {
      this.#durableId = line.id;
      const event = served(line);
      resolve(event);
      this.#notify(event);
    }
  }

  /**
   * A write failed (a full disk): the lines queued are not stored. Their ids are given back (no
   * reader ever saw them), their streams' sequences rolled back (so the mod's resend is stored),
   * the segment is cut back to its last complete line before the next write, and the next write
   * is tried after a backoff.
   */
  async #failed(error: Error, lost: PendingLine[]): Promise<void> {
    const first = lost[0] as PendingLine;
    this.#nextId = first.line.id;
    for (const entry of [...lost].reverse()) {
      const src = entry.line.src;
      if (src && entry.previousSeq !== null) {
        if (entry.previousSeq === 0) this.#streams.delete(src.stream);
        else this.#streams.set(src.stream, entry.previousSeq);
      }
    }
    this.#dirtyTail = true;
    const delayMs = Math.min(RETRY_MAX_MS, this.#failure ? this.#failure.delayMs * 2 : RETRY_MIN_MS);
    const failure = this.#failure ?? { error, lost: 0, since: this.#now(), delayMs, retryAt: 0 };
    this.#failure = {
      ...failure,
      error,
      delayMs,
      retryAt: this.#now() + delayMs,
      lost: failure.lost + lost.length,
    };
    this.#metrics?.eventsNotStored(lost.length);
    this.#health?.fault(EVENTS_STORE, error, { events_lost: lost.length, retry_in_ms: delayMs });
    this.#log.error('event log: append failed; these events are not stored, retrying on a later append', {
      error: error.message,
      events_lost: lost.length,
      retry_in_ms: delayMs,
    });
    for (const entry of lost) entry.reject(error);
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
    const handle = await open(join(this.folder, name), 'w', FILE_MODE);
    await handle.chmod(FILE_MODE);
    const header = headerLine(firstId, this.#streams);
    await handle.writeFile(header);
    await handle.sync();
    await syncFolder(this.folder);
    this.#handle = handle;
    this.#segments = this.#segments.filter((segment) => segment.name !== name);
    this.#segments.push({ name, firstId, offsets: [Buffer.byteLength(header)], lastStored: 0 });
  }

  async #retentionTick(): Promise<void> {
    this.#flushing = this.#flushing.then(() =>
      this.#applyRetention().catch((error: unknown) =>
        this.#log.error('event log: retention failed; retried in a minute', {
          error: (error as Error).message,
        }),
      ),
    );
    await this.#flushing;
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

  /**
   * Reads events `from`..`to` of one segment by their byte offsets, at most READ_CHUNK_BYTES of
   * consecutive lines per positioned read. A line longer than the limit is never read; it and any
   * line that is not an event are skipped (`#skipped`).
   */
  #readLines(segment: Segment, from: number, to: number): EventLine[] {
    const lines: EventLine[] = [];
    const fd = openSync(join(this.folder, segment.name), 'r');
    try {
      let id = from;
      while (id <= to) {
        const start = this.#offset(segment, id);
        if (this.#offset(segment, id + 1) - start - 1 > this.#maxLineBytes || this.#unreadable.has(id)) {
          this.#skipped(id, segment.name);
          id += 1;
          continue;
        }
        let last = id;
        while (last < to && this.#fits(segment, start, last + 1)) last += 1;
        const buffer = readAt(fd, start, this.#offset(segment, last + 1) - start);
        for (const [index, text] of buffer
          .toString('utf8')
          .split('\n')
          .slice(0, last - id + 1)
          .entries()) {
          const line = parseEventLine(text);
          if (line && line.id === id + index) lines.push(line);
          else this.#skipped(id + index, segment.name);
        }
        id = last + 1;
      }
    } finally {
      closeSync(fd);
    }
    return lines;
  }

  #offset(segment: Segment, id: number): number {
    return segment.offsets[id - segment.firstId] as number;
  }

  /** Whether line `id` is readable and ends within one chunk read from `start`. */
  #fits(segment: Segment, start: number, id: number): boolean {
    const end = this.#offset(segment, id + 1);
    return (
      end - this.#offset(segment, id) - 1 <= this.#maxLineBytes &&
      end - start <= READ_CHUNK_BYTES &&
      !this.#unreadable.has(id)
    );
  }

  /** A line that cannot be read: counted and logged the first time a reader meets it. */
  #skipped(id: number, file: string): void {
    if (this.#unreadable.has(id)) return;
    if (this.#unreadable.size < MAX_UNREADABLE_REMEMBERED) this.#unreadable.add(id);
    this.#metrics?.eventLineSkipped();
    this.#skipReport.add('unreadable', 1, { file, last_id: id });
  }
}

/** Reads `length` bytes at `position`. */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

/** The event as served: `{id, type, at, data}` only. */
function served(line: EventLine): StoredEvent {
  return { id: line.id, type: line.type, at: line.at, data: line.data };
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
