/**
 * The game's memory of applied op ids (PROTOCOL §6.4): a mutating op that carries an op id is
 * applied at most once, and a repeat answers with the first result. The memory is part of the
 * world, not of a link or a handler set, so it survives reconnects and simulators that share a
 * world. It is bounded: past `capacity` op ids the oldest is forgotten (a retry that late applies
 * again).
 */

export const APPLIED_OPS_CAPACITY = 10_000;

export interface AppliedOp {
  /** The op's name, so a reused op id can be told apart from a retry. */
  op: string;
  /** A snapshot of the first result, taken when it was recorded. */
  result: unknown;
}

export class AppliedOps {
  readonly #byOpId = new Map<string, AppliedOp>();

  constructor(readonly capacity: number = APPLIED_OPS_CAPACITY) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${String(capacity)}`);
    }
  }

  get size(): number {
    return this.#byOpId.size;
  }

  /** What `opId` produced, as a fresh copy of the recorded snapshot; undefined when unknown. */
  get(opId: string): AppliedOp | undefined {
    const applied = this.#byOpId.get(opId);
    return applied === undefined ? undefined : { op: applied.op, result: structuredClone(applied.result) };
  }

  /**
   * Records the result `opId` produced. The result is copied, so later changes to the world (a
   * relink edits shared identity objects in place) never alter what a retry receives.
   */
  record(opId: string, op: string, result: unknown): void {
    this.#byOpId.delete(opId);
    this.#byOpId.set(opId, { op, result: structuredClone(result) });
    if (this.#byOpId.size > this.capacity) {
      const oldest = this.#byOpId.keys().next();
      if (oldest.done !== true) this.#byOpId.delete(oldest.value);
    }
  }
}
