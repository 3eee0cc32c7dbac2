/**
 * The audit log: one JSON line per write request (POST, PUT, PATCH, DELETE) that passed
 * authentication, appended to `audit.jsonl` in the data dir (mode 0600): when, which key, which
 * route and target, the outcome and the request id. Append-only: the daemon never rewrites or
 * truncates it. Rotate it by moving it away and sending SIGHUP (logrotate without copytruncate,
 * which loses the lines written between its copy and its truncate; docs/configuration.md). Each
 * line starts on a fresh line whatever the file ends with; a failed write is reported to
 * StorageHealth (logged at error, /healthz degraded) and counted (`modgate_write_failures_total`).
 * Lines that could not be written (a full disk) leave a trace in the file itself: the first write
 * that succeeds again is a gap record (`AuditGap`: how many lines, the span of their times, the
 * error) before anything else. That write is retried on its own after 1 s, doubling to a minute,
 * so the gap is recorded and /healthz recovers as soon as the disk has room, not at the next
 * audited request (docs/configuration.md, "Logs and the audit log").
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageHealth } from '../storage-health.ts';
import { openDataFile } from '../store/data-dir-fs.ts';
import { RECORD_FILES } from '../store/data-dir.ts';

export const AUDIT_FILE = RECORD_FILES.audit;

/** Who made an admin request (docs/admin.md, "Who the audit log names"). */
export type AuditActor =
  { kind: 'local'; uid: number } | { kind: 'token' | 'session'; token_id: string; name: string };

export interface AuditEntry {
  time: string;
  request_id: string;
  /** The API key of a /v1 write; null for an admin request, which names its `actor` instead. */
  key_id: string | null;
  /** Admin API requests only: who made it. */
  actor?: AuditActor;
  method: string;
  route: string;
  /** The concrete path: which player, pack or code the write aimed at. */
  target: string;
  status: number;
  /** `aborted`: the client closed the connection before its request was read (status 499). */
  outcome: 'ok' | 'error' | 'aborted';
  error_code: string | null;
  replayed: boolean;
}

/** The line written where audit lines were lost: `{"time", "gap": {…}}`. */
export interface AuditGap {
  /** When the gap was recorded. */
  time: string;
  gap: {
    lines_lost: number;
    /** `time` of the first and the last line lost. */
    first_lost_at: string;
    last_lost_at: string;
    /** Why the writes failed (the first error). */
    error: string;
  };
}

/** After a failed write, the gap record is tried again after 1 s, doubling to a minute. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export class AuditLog {
  #handle: FileHandle | null = null;
  #writes: Promise<void> = Promise.resolve();
  /** False when the file may end mid-line: the next line starts with a newline. */
  #atLineStart = true;
  /** Lines not written since the last write that succeeded (a full disk): the gap to record. */
  #gap: AuditGap['gap'] | null = null;
  #retry: { timer: NodeJS.Timeout | null; delayMs: number } | null = null;
  readonly #health: StorageHealth | undefined;
  readonly #now: () => number;

  private constructor(
    readonly path: string,
    health: StorageHealth | undefined,
    now: () => number,
  ) {
    this.#health = health;
    this.#now = now;
  }

  static async open(
    dataDir: string,
    health?: StorageHealth,
    now: () => number = Date.now,
  ): Promise<AuditLog> {
    const log = new AuditLog(join(dataDir, AUDIT_FILE), health, now);
    await log.reopen();
    return log;
  }

  /** Queues one line; lines are written in order and never interleave, after any gap record. */
  append(entry: AuditEntry): Promise<void> {
    const write = this.#writes.then(async () => {
      try {
        await this.#writeGap();
        await this.#write(`${JSON.stringify(entry)}\n`);
      } catch (error) {
        this.#lostLine(entry.time, error);
        throw error;
      }
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  /** Writes one line, starting a fresh line if the file may end mid-line. */
  async #write(line: string): Promise<void> {
    try {
      await this.#handle?.appendFile(this.#atLineStart ? line : `\n${line}`);
    } catch (error) {
      this.#atLineStart = false;
      throw error;
    }
    this.#atLineStart = true;
  }

  /** Records the gap, if lines were lost, and ends the fault: the disk has room again. */
  async #writeGap(): Promise<void> {
    const gap = this.#gap;
    if (!gap) return;
    await this.#write(
      `${JSON.stringify({ time: new Date(this.#now()).toISOString(), gap } satisfies AuditGap)}\n`,
    );
    this.#gap = null;
    if (this.#retry?.timer) clearTimeout(this.#retry.timer);
    this.#retry = null;
    this.#health?.recovered(AUDIT_FILE, { lines_lost: gap.lines_lost });
  }

  /** A line was lost: add it to the gap, say so, and retry recording the gap on a backoff. */
  #lostLine(time: string, error: unknown): void {
    const gap = this.#gap;
    this.#gap = gap
      ? { ...gap, lines_lost: gap.lines_lost + 1, last_lost_at: time }
      : { lines_lost: 1, first_lost_at: time, last_lost_at: time, error: (error as Error).message };
    this.#health?.fault(AUDIT_FILE, error, { lines_lost: this.#gap.lines_lost });
    if (!this.#retry) this.#retryGap(RETRY_MIN_MS);
  }

  /** Tries to record the gap after `delayMs`, queued like a line; again, longer, if it fails. */
  #retryGap(delayMs: number): void {
    const timer = setTimeout(() => {
      const attempt = this.#writes.then(() => this.#writeGap());
      this.#writes = attempt.catch(() => {
        if (this.#retry) this.#retryGap(Math.min(RETRY_MAX_MS, delayMs * 2));
      });
    }, delayMs);
    timer.unref();
    this.#retry = { timer, delayMs };
  }

  /**
   * Opens the file again (after a rotation moved it away). Queued like a line: every line queued
   * before goes to the old file, every line after to the new one, and none is lost in between.
   */
  reopen(): Promise<void> {
    const swap = this.#writes.then(async () => {
      const next = await openDataFile(this.path, 'appendAndRead');
      let atLineStart: boolean;
      try {
        atLineStart = await endsWithNewline(next);
      } catch (error) {
        await next.close(); // the old file stays in use, as when the open itself fails
        throw error;
      }
      const previous = this.#handle;
      this.#handle = next;
      this.#atLineStart = atLineStart;
      await previous?.close();
    });
    this.#writes = swap.catch(() => undefined);
    return swap;
  }

  async close(): Promise<void> {
    if (this.#retry?.timer) clearTimeout(this.#retry.timer);
    this.#retry = null;
    await this.#writes;
    await this.#handle?.close();
    this.#handle = null;
  }
}

async function endsWithNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
