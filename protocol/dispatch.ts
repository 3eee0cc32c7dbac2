/**
 * The mod side's answer to one request (PROTOCOL §6.2–§6.3): look up the handler, parse the
 * arguments with the op's schema, run it, and turn what happened into a `res` frame body. Never
 * throws: a handler's OpError keeps its code, anything else becomes a generic `internal`, and a
 * handler that fails once the request's deadline has passed is reported as `timeout`.
 */
import type { z } from 'zod';
import type { ReqFrame, ResFrame } from './frames.ts';
import type { Logger } from './log.ts';
import { argsSchema } from './ops/compiled.ts';
import { isOpName, OP_ERROR_CODES, OpError, type OpErrorCode, type OpHandlers } from './ops/index.ts';

/** What a handler receives besides its arguments. */
export interface HandlerContext {
  opId: string | undefined;
  signal: AbortSignal;
  /**
   * PROTOCOL §6.5: tells the daemon the change is committed before the result is ready, so a
   * timeout or a lost link after this point reports the write as applied. Idempotent.
   */
  applied(): void;
}

type AnyHandler = (args: unknown, ctx: HandlerContext) => unknown;

const KNOWN_CODES: ReadonlySet<string> = new Set(OP_ERROR_CODES);

const DEADLINE_PASSED = 'the op deadline passed';

/**
 * The context of one in-flight request. Its `signal` is created on first use (most handlers never
 * read it) and aborts at the request's deadline or when the link is lost.
 */
export class RequestContext implements HandlerContext {
  #controller: AbortController | null = null;
  #timer: NodeJS.Timeout | null = null;
  #abortReason: string | null = null;
  readonly #deadlineAt: number;

  #appliedSent = false;
  readonly #onApplied: () => void;

  constructor(
    readonly opId: string | undefined,
    deadlineMs: number,
    onApplied: () => void = () => {},
  ) {
    this.#onApplied = onApplied;
    this.#deadlineAt = performance.now() + deadlineMs;
  }

  applied(): void {
    if (this.#appliedSent || this.#abortReason !== null) return;
    this.#appliedSent = true;
    this.#onApplied();
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#abortReason !== null) controller.abort(new Error(this.#abortReason));
    else {
      // A timer holds at most 2^31 − 1 ms; a longer u32 deadline would otherwise fire at once.
      const remaining = Math.min(Math.max(0, this.#deadlineAt - performance.now()), 2_147_483_647);
      this.#timer = setTimeout(() => this.abort(DEADLINE_PASSED), remaining).unref();
    }
    return controller.signal;
  }

  /**
   * True once the request's deadline has passed: by the clock, or because the signal's timer
   * fired (a timer may fire a millisecond before the clock agrees).
   */
  get deadlinePassed(): boolean {
    return this.#abortReason === DEADLINE_PASSED || performance.now() >= this.#deadlineAt;
  }

  abort(reason: string): void {
    if (this.#abortReason !== null) return;
    this.#abortReason = reason;
    this.dispose();
    this.#controller?.abort(new Error(reason));
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

export function errorRes(
  id: number,
  code: OpErrorCode,
  message: string,
  details?: Record<string, unknown>,
): ResFrame {
  return { t: 'res', id, ok: false, error: details ? { code, message, details } : { code, message } };
}

/** zod issues as `details.issues`: a path and a message each, never the raw issue objects. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): Record<string, unknown> {
  return {
    issues: issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  };
}

function isOpError(error: unknown): error is OpError {
  return (
    error instanceof OpError ||
    (error instanceof Error &&
      error.name === 'OpError' &&
      KNOWN_CODES.has((error as { code?: unknown }).code as string))
  );
}

export async function dispatchRequest(
  req: ReqFrame,
  handlers: Partial<OpHandlers>,
  ctx: RequestContext,
  log: Logger,
): Promise<ResFrame> {
  const { id, op } = req;
  const handler = isOpName(op) ? (handlers[op] as AnyHandler | undefined) : undefined;
  if (typeof handler !== 'function' || !isOpName(op)) {
    return errorRes(id, 'unsupported', `this mod does not implement ${op.slice(0, 64)}`);
  }
  const parsed = argsSchema(op).safeParse(req.args);
  if (!parsed.success)
    return errorRes(id, 'invalid', `invalid arguments for ${op}`, issuesToDetails(parsed.error.issues));
  try {
    const result = await handler(parsed.data, ctx);
    return { t: 'res', id, ok: true, result: result === undefined ? null : result };
  } catch (error) {
    // PROTOCOL §6.3: past the deadline the daemon has answered its client with a timeout, or is
    // about to; whatever the handler threw (often the signal's abort), the honest answer is that.
    if (ctx.deadlinePassed) return errorRes(id, 'timeout', `${op} did not finish within its deadline`);
    if (isOpError(error)) return errorRes(id, error.code, error.message, error.details);
    log.error('op handler failed', { op, error: error instanceof Error ? error.stack : String(error) });
    return errorRes(id, 'internal', 'the mod failed to handle the op');
  }
}
