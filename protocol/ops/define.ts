/**
 * The op catalogue's building block (PROTOCOL §6). An op is a named request the daemon sends to
 * the mod; its zod schemas are the single contract both sides validate against: the daemon
 * checks every result it receives, the mod-side bridge checks every argument it is handed.
 */
import type { z } from 'zod';

/** Error codes a mod may answer an op with (PROTOCOL §6.3); the daemon maps each to an API error. */
export const OP_ERROR_CODES = [
  'not_found', // the subject (player, pack, squad, …) does not exist
  'conflict', // the request conflicts with the game's current state
  'invalid', // the game rejected the arguments; its message reaches the client as details.mod_message
  'unavailable', // the game cannot answer yet (e.g. still loading); retry later
  'rate_limited', // a game-side cooldown; details.retry_after_sec says when
  'unsupported', // this mod build does not implement the op or this variant of it
  'timeout', // the mod gave up when the request's deadline_ms passed (§6.3); the daemon answers 504
  'internal', // anything else that went wrong inside the mod
] as const;
export type OpErrorCode = (typeof OP_ERROR_CODES)[number];

export interface OpDefinition<
  N extends string = string,
  A extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  readonly name: N;
  readonly args: A;
  readonly result: R;
  /** How long the daemon waits for the answer before the API call fails with 504. */
  readonly deadlineMs: number;
  /** True when the op changes game state: the bridge deduplicates these by op id (PROTOCOL §6.4). */
  readonly mutates: boolean;
}

export function defineOp<N extends string, A extends z.ZodType, R extends z.ZodType>(
  op: OpDefinition<N, A, R>,
): OpDefinition<N, A, R> {
  return Object.freeze(op);
}

/** Thrown by a mod-side handler to answer an op with a typed error instead of a result. */
export class OpError extends Error {
  constructor(
    readonly code: OpErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'OpError';
  }
}
