/**
 * Which of the daemon's record files (the idempotency journal, the audit log) it currently cannot
 * write, said loudly: every failed write is logged at error, `/healthz` reports `degraded` with
 * the files in `storage_faults`, and `modgate doctor` fails its `storage` check while any is
 * failing (docs/operations.md "When the disk is full").
 */
import type { Logger } from './log/log.ts';

export class StorageHealth {
  readonly #faults = new Map<string, string>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** A write to `file` failed; `fields` say what it costs (records kept only in memory, …). */
  fault(file: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#faults.set(file, message);
    this.#log.error(`${file} cannot be written`, { file, error: message, ...fields });
  }

  /** `file` accepted a write again. */
  recovered(file: string, fields: Record<string, unknown> = {}): void {
    if (!this.#faults.delete(file)) return;
    this.#log.warn(`${file} is written again`, { file, ...fields });
  }

  /** `file: error` for each file failing now; empty when all is well. */
  get faults(): string[] {
    return [...this.#faults].map(([file, message]) => `${file}: ${message}`);
  }
}
