/**
 * The audit log: one JSON line per write request (POST, PUT, PATCH, DELETE) that passed
 * authentication, appended to `audit.jsonl` in the data dir (mode 0600): when, which key, which
 * route and target, the outcome and the request id. Append-only: the daemon never rewrites or
 * truncates it. Rotate it by moving it away and sending SIGHUP (logrotate without copytruncate,
 * which loses the lines written between its copy and its truncate; docs/configuration.md). Each
 * line starts on a fresh line whatever the file ends with; a failed write is reported to
 * StorageHealth (logged at error, /healthz degraded) and counted (`modgate_write_failures_total`),
 * and the first write that succeeds again logs how many lines were lost in between.
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

export class AuditLog {
  #handle: FileHandle | null = null;
  #writes: Promise<void> = Promise.resolve();
  /** False when the file may end mid-line: the next line starts with a newline. */
  #atLineStart = true;
  /** Lines not written since the last write that succeeded (a full disk); said when writes resume. */
  #lost = 0;
  readonly #health: StorageHealth | undefined;

  private constructor(
    readonly path: string,
    health: StorageHealth | undefined,
  ) {
    this.#health = health;
  }

  static async open(dataDir: string, health?: StorageHealth): Promise<AuditLog> {
    const log = new AuditLog(join(dataDir, AUDIT_FILE), health);
    await log.reopen();
    return log;
  }

  /** Queues one line; lines are written in order and never interleave. */
  append(entry: AuditEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const write = this.#writes.then(async () => {
      try {
        await this.#handle?.appendFile(this.#atLineStart ? line : `\n${line}`);
      } catch (error) {
        this.#atLineStart = false;
        this.#lost += 1;
        this.#health?.fault(AUDIT_FILE, error, { request_id: entry.request_id, lines_lost: this.#lost });
        throw error;
      }
      this.#atLineStart = true;
      this.#health?.recovered(AUDIT_FILE, { lines_lost: this.#lost });
      this.#lost = 0;
    });
    this.#writes = write.catch(() => undefined);
    return write;
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
