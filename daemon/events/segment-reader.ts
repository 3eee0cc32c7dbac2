/**
 * How the event log reads its segments back (every reader: the SSE catch-up, polling, webhooks):
 * by the byte offsets the log keeps for each line, never reading a line longer than
 * `maxLineBytes`, and at most a megabyte of consecutive lines per positioned read. A line past the
 * limit, or one that is not the event its position says, is skipped: counted once
 * (`modgate_event_log_lines_skipped_total`), logged in one line a minute, and remembered so the
 * next read skips it without looking. Start-up reports the lines it found unreadable here too.
 */
import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/log.ts';
import { openDataFileSyncForReading } from '../store/data-dir-fs.ts';
import type { DaemonMetrics } from '../metrics/metrics.ts';
import { IntervalReport } from './interval-report.ts';
import { parseEventLine, type EventLine, type Segment } from './segments.ts';

/** One positioned read takes at most this many bytes of consecutive lines. */
const READ_CHUNK_BYTES = 1024 * 1024;
/** Unreadable ids remembered so each is counted once (a bound, not an expectation). */
const MAX_UNREADABLE_REMEMBERED = 100_000;

export class SegmentReader {
  readonly #unreadable = new Set<number>();
  readonly #report: IntervalReport;
  readonly #folder: string;
  readonly #maxLineBytes: number;
  readonly #metrics: Pick<DaemonMetrics, 'eventLineSkipped'> | undefined;

  constructor(
    folder: string,
    maxLineBytes: number,
    log: Logger,
    metrics: Pick<DaemonMetrics, 'eventLineSkipped'> | undefined,
  ) {
    this.#folder = folder;
    this.#maxLineBytes = maxLineBytes;
    this.#metrics = metrics;
    this.#report = new IntervalReport(log, 'event log: unreadable lines skipped');
  }

  /** Logs what is still counted. */
  close(): void {
    this.#report.close();
  }

  /**
   * Reads events `from`..`to` of one segment by their byte offsets, at most READ_CHUNK_BYTES of
   * consecutive lines per positioned read. A line longer than the limit is never read; it and any
   * line that is not an event are skipped (`skipped`).
   */
  read(segment: Segment, from: number, to: number): EventLine[] {
    const lines: EventLine[] = [];
    const fd = openDataFileSyncForReading(join(this.#folder, segment.name));
    try {
      let id = from;
      while (id <= to) {
        const start = this.#offset(segment, id);
        if (this.#offset(segment, id + 1) - start - 1 > this.#maxLineBytes || this.#unreadable.has(id)) {
          this.skipped(id, segment.name);
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
          else this.skipped(id + index, segment.name);
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
  skipped(id: number, file: string): void {
    if (this.#unreadable.has(id)) return;
    if (this.#unreadable.size < MAX_UNREADABLE_REMEMBERED) this.#unreadable.add(id);
    this.#metrics?.eventLineSkipped();
    this.#report.add('unreadable', 1, { file, last_id: id });
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
