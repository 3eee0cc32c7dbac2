/**
 * The op catalogue's building block (PROTOCOL §6). An op is a named request the daemon sends to
 * the mod; its zod schemas are the single contract both sides validate against: the daemon
 * checks every result it receives, the mod-side bridge checks every argument it is handed.
 */
import type { z } from 'zod';
import { type Declared, schemaField } from '../lazy-schema.ts';

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

/** An op as declared: its schemas given as built or as thunks (protocol/lazy-schema.ts). */
export interface OpDeclaration<N extends string, A extends z.ZodType, R extends z.ZodType> extends Omit<
  OpDefinition<N, A, R>,
  'args' | 'result'
> {
  readonly args: Declared<A>;
  readonly result: Declared<R>;
}

/**
 * The op as both sides read it: `args` and `result` are the schemas themselves, a thunk becoming
 * a getter that builds its schema on first read (the op's first call, or the docs that list it).
 */
export function defineOp<N extends string, A extends z.ZodType, R extends z.ZodType>(
  op: OpDeclaration<N, A, R>,
): OpDefinition<N, A, R> {
  const { args, result, ...rest } = op;
  const definition = { ...rest };
  schemaField(definition, 'args', args);
  schemaField(definition, 'result', result);
  return Object.freeze(definition) as OpDefinition<N, A, R>;
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

/** Declares ops of one kind: how long the daemon waits for the answer, and whether they write. */
function opKind(deadlineMs: number, mutates: boolean) {
  return <N extends string, A extends z.ZodType, R extends z.ZodType>(
    name: N,
    args: Declared<A>,
    result: Declared<R>,
  ): OpDefinition<N, A, R> => defineOp({ name, args, result, deadlineMs, mutates });
}

/** A read op: changes nothing; the daemon waits 5 s for its answer. */
export const readOp = opKind(5_000, false);

/** A write op: changes game state, deduplicated by op id (PROTOCOL §6.4); the daemon waits 10 s. */
export const writeOp = opKind(10_000, true);
