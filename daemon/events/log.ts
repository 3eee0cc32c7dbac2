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
 */
import { closeSync, readSync } from 'node:fs';
import { rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../log.ts';
import { ensureFolder, FILE_MODE, syncFolder } from '../store/atomic-file.ts';
import { openDataFile, openDataFileSyncForReading } from '../store/data-dir-fs.ts';
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
/** How many mod streams' sequences are remembered (a stream is one run of a mod process). */
export const MAX_STREAMS = 64;
const RETENTION_CHECK_MS = 60_000;

export interface EventLogOptions {
  maxEvents?: number;
  maxAgeMs?: number;
  /** Events per segment; defaults to min(10,000, a tenth of maxEvents). */
  segmentEvents?: number;
  now?: () => number;
  log?: Logger;
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

export class FileEventLog implements EventLog {
  readonly folder: string;
  #segments: Segment[] = [];
  #nextId = 1;
  #durableId = 0;
  #streams = new Map<string, number>();
  #handle: FileHandle | null = null;
  #pending: { line: EventLine; text: string }[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #timer: NodeJS.Timeout | null = null;
  #failed: Error | null = null;
  readonly #listeners = new Set<Listener>();
  readonly #maxEvents: number;
  readonly #maxAgeMs: number;
  readonly #segmentEvents: number;
  readonly #now: () => number;
  readonly #log: Logger;

  private constructor(dataDir: string, options: EventLogOptions) {
    this.folder = join(dataDir, EVENTS_FOLDER);
    this.#maxEvents = positive(options.maxEvents ?? DEFAULT_RETENTION.maxEvents, 'maxEvents');
    this.#maxAgeMs = positive(options.maxAgeMs ?? DEFAULT_RETENTION.maxAgeMs, 'maxAgeMs');
    this.#segmentEvents = positive(
      options.segmentEvents ??
        Math.max(1, Math.min(DEFAULT_SEGMENT_EVENTS, Math.floor(this.#maxEvents / 10))),
      'segmentEvents',
    );
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? silentLogger;
  }

  static async open(dataDir: string, options: EventLogOptions = {}): Promise<FileEventLog> {
    const eventLog = new FileEventLog(dataDir, options);
    await ensureFolder(eventLog.folder);
    const loaded = await loadSegments(eventLog.folder, eventLog.#log);
    eventLog.#segments = loaded.segments;
    eventLog.#nextId = loaded.nextId;
    eventLog.#durableId = loaded.nextId - 1;
    eventLog.#streams = loaded.streams;
    const active = eventLog.#active();
    if (active && segmentLastId(active) === eventLog.#durableId) {
      eventLog.#handle = await openDataFile(join(eventLog.folder, active.name), 'append');
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

  readAfter(after: number, limit: number): StoredEvent[] | EventsGone {
    const oldest = this.oldestId();
    if (after < oldest - 1) return { gone: true, oldestId: oldest };
    const out: StoredEvent[] = [];
    let from = Math.max(after + 1, oldest);
    const to = Math.min(this.#durableId, from + Math.max(0, limit) - 1);
    while (from <= to) {
      const segment = this.#segmentOf(from);
      if (!segment) break;
      const last = Math.min(to, segmentLastId(segment));
      for (const line of this.#readLines(segment, from, last)) out.push(served(line));
      from = last + 1;
    }
    return out;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Assigns the next id and queues the event; resolves with it once it is durable. An event whose
   * source sequence was already stored resolves with null and is not stored again.
   */
  append(input: AppendInput): Promise<StoredEvent | null> {
    if (this.#failed) return Promise.reject(this.#failed);
    const { source } = input;
    if (source) {
      if (source.seq <= this.streamSeq(source.stream)) return this.flushed().then(() => null);
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
    this.#pending.push({ line, text: eventLine(line) });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flushing = this.#flushing.then(() => this.#flush());
      });
    }
    const id = line.id;
    return new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flushed())
      .then(() => {
        if (this.#durableId < id) throw new Error('event log write failed');
        return served(line);
      });
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
  }

  /** One write and one fsync for everything queued, rolling to a new segment when one fills. */
  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      let active = this.#active();
      if (!active || active.offsets.length - 1 >= this.#segmentEvents) {
        await this.#startSegment();
        await this.#applyRetention();
        active = this.#active() as Segment;
      }
      const room = this.#segmentEvents - (active.offsets.length - 1);
      const batch = this.#pending.splice(0, room);
      const text = batch.map((entry) => entry.text).join('');
      try {
        await this.#handle?.appendFile(text);
        await this.#handle?.sync();
      } catch (error) {
        // A write that failed may have left part of a line: stop appending; a restart cuts it.
        this.#failed = error as Error;
        this.#log.error('event log: append failed; no more events are stored until a restart', {
          error: this.#failed.message,
        });
        this.#pending = [];
        return;
      }
      let end = active.offsets.pop() as number;
      for (const entry of batch) {
        active.offsets.push(end);
        end += Buffer.byteLength(entry.text);
      }
      active.offsets.push(end);
      active.lastStored = (batch.at(-1) as { line: EventLine }).line.stored;
      for (const { line } of batch) {
        this.#durableId = line.id;
        this.#notify(served(line));
      }
    }
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
    this.#flushing = this.#flushing.then(() => this.#applyRetention());
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

  /** Reads events `from`..`to` of one segment with one positioned read. */
  #readLines(segment: Segment, from: number, to: number): EventLine[] {
    const start = segment.offsets[from - segment.firstId] as number;
    const end = segment.offsets[to - segment.firstId + 1] as number;
    const buffer = Buffer.allocUnsafe(end - start);
    const fd = openDataFileSyncForReading(join(this.folder, segment.name));
    try {
      let read = 0;
      while (read < buffer.length) {
        const n = readSync(fd, buffer, read, buffer.length - read, start + read);
        if (n === 0) break;
        read += n;
      }
    } finally {
      closeSync(fd);
    }
    const lines: EventLine[] = [];
    for (const text of buffer.toString('utf8').split('\n')) {
      if (text === '') continue;
      const line = parseEventLine(text);
      if (line) lines.push(line);
      else this.#log.error('event log: an unreadable line was skipped', { file: segment.name });
    }
    return lines;
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
