/**
 * What a start-up step has opened so far, closed (the last first) when a later step fails: a
 * daemon that cannot start leaves no file open, no timer running and no connection behind it, for
 * the process that embeds it (a test, `modgate serve` retrying after a reload) as much as for one
 * that exits.
 */
import type { Logger } from './log/log.ts';

export class OpenedSoFar {
  readonly #closers: { what: string; close: () => Promise<void> | void }[] = [];

  /** `value`, to be closed by its own `close()`, or by `close` when given, if a later step fails. */
  keep<T extends { close(): Promise<void> | void }>(what: string, value: T): T;
  keep<T>(what: string, value: T, close: (value: T) => Promise<void> | void): T;
  keep<T>(what: string, value: T, close?: (value: T) => Promise<void> | void): T {
    const closeIt = close ?? ((kept: T) => (kept as { close(): Promise<void> | void }).close());
    this.#closers.push({ what, close: () => closeIt(value) });
    return value;
  }

  /**
   * Closes everything kept, the last first. A close that fails is logged and the others still
   * run: the step's own error is the one the caller throws.
   */
  async closeAll(log: Logger): Promise<void> {
    for (const { what, close } of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        log.warn('cannot close after a failed start', { what, error: (error as Error).message });
      }
    }
  }
}
