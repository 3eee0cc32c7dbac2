/**
 * The audit log: one JSON line per write request (POST, PUT, PATCH, DELETE) that passed
 * authentication, appended to `audit.jsonl` in the data dir (mode 0600): when, which key, which
 * route and target, the outcome and the request id. Append-only: the daemon never rewrites or
 * truncates it (rotate it with logrotate's copytruncate, or move it away and send SIGHUP).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export const AUDIT_FILE = 'audit.jsonl';

export interface AuditEntry {
  time: string;
  request_id: string;
  key_id: string;
  method: string;
  route: string;
  /** The concrete path: which player, pack or code the write aimed at. */
  target: string;
  status: number;
  outcome: 'ok' | 'error';
  error_code: string | null;
  replayed: boolean;
}

export class AuditLog {
  #handle: FileHandle | null = null;
  #writes: Promise<void> = Promise.resolve();

  private constructor(readonly path: string) {}

  static async open(dataDir: string): Promise<AuditLog> {
    const log = new AuditLog(join(dataDir, AUDIT_FILE));
    await log.reopen();
    return log;
  }

  /** Queues one line; lines are written in order and never interleave. */
  append(entry: AuditEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const write = this.#writes.then(async () => {
      await this.#handle?.appendFile(line);
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  /** Opens the file again (after a rotation moved it away). */
  async reopen(): Promise<void> {
    await this.#writes;
    const previous = this.#handle;
    this.#handle = await open(this.path, 'a', 0o600);
    await previous?.close();
  }

  async close(): Promise<void> {
    await this.#writes;
    await this.#handle?.close();
    this.#handle = null;
  }
}
