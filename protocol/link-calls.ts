/**
 * Request/response correlation for the daemon side (PROTOCOL §6.2): one `PendingCalls` per
 * authenticated link. Each call has an id, a deadline and a result schema; a lost link rejects
 * every pending call at once, and a response that arrives after its deadline is dropped quietly.
 */
import type { RemoteOpError, ResFrame } from './frames.ts';
import type { Logger } from './log.ts';
import { resultSchema } from './ops/compiled.ts';
import { OP_ERROR_CODES, type OpErrorCode, type OpName } from './ops/index.ts';

export type LinkCallErrorKind = 'not_connected' | 'timeout' | 'link_lost' | 'remote' | 'bad_result';

export interface LinkOpError {
  code: OpErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** Why `ModLinkServer.call` failed; `opError` is set when `kind` is `remote`. */
export class LinkCallError extends Error {
  constructor(
    readonly kind: LinkCallErrorKind,
    readonly op: string,
    message: string,
    readonly opError?: LinkOpError,
    /** The mod reported the change committed (PROTOCOL §6.5) before the call failed. */
    readonly applied = false,
  ) {
    super(message);
    this.name = 'LinkCallError';
  }
}

interface Pending {
  op: OpName;
  applied: boolean;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const KNOWN_CODES: ReadonlySet<string> = new Set(OP_ERROR_CODES);

/** A code outside the catalogue (a newer mod, a bug) is reported as `internal` (PROTOCOL §6.3). */
export function toLinkOpError(remote: RemoteOpError): LinkOpError {
  if (KNOWN_CODES.has(remote.code)) {
    const known: LinkOpError = { code: remote.code as OpErrorCode, message: remote.message };
    if (remote.details) known.details = remote.details;
    return known;
  }
  return { code: 'internal', message: remote.message, details: { ...remote.details, mod_code: remote.code } };
}

export class PendingCalls {
  readonly #calls = new Map<number, Pending>();
  #lastId = 0;
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  get size(): number {
    return this.#calls.size;
  }

  /** Registers a call and arms its deadline; returns the request id (a u32, never 0). */
  add(op: OpName, deadlineMs: number, resolve: Pending['resolve'], reject: Pending['reject']): number {
    const id = this.#nextId();
    const timer = setTimeout(() => {
      const applied = this.#calls.get(id)?.applied ?? false;
      this.#calls.delete(id);
      reject(
        new LinkCallError('timeout', op, `${op} got no answer within ${deadlineMs} ms`, undefined, applied),
      );
    }, deadlineMs);
    this.#calls.set(id, { op, applied: false, resolve, reject, timer });
    return id;
  }

  /** Forgets a call whose request could not be sent. */
  remove(id: number): void {
    const pending = this.#calls.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#calls.delete(id);
  }

  /** Settles the call a response answers; unknown ids (late answers) are dropped (PROTOCOL §6.2). */
  /** PROTOCOL §6.5: remembers that the mod committed this call's change. */
  markApplied(id: number): void {
    const pending = this.#calls.get(id);
    if (pending) pending.applied = true;
  }

  settle(res: ResFrame): void {
    const pending = this.#calls.get(res.id);
    if (!pending) {
      this.#log.debug('mod link: dropped a response with no pending call', { id: res.id });
      return;
    }
    this.remove(res.id);
    if (!res.ok) {
      const opError = toLinkOpError(res.error);
      const message = `${pending.op}: ${opError.message}`;
      // PROTOCOL §6.3: the mod's own deadline fired first; the call timed out all the same.
      const kind = opError.code === 'timeout' ? 'timeout' : 'remote';
      pending.reject(
        new LinkCallError(kind, pending.op, message, opError, kind === 'timeout' && pending.applied),
      );
      return;
    }
    const parsed = resultSchema(pending.op).safeParse(res.result);
    if (parsed.success) return pending.resolve(parsed.data);
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      message: issue.message,
    }));
    this.#log.warn('mod link: the mod answered with an invalid result', { op: pending.op, issues });
    pending.reject(
      new LinkCallError('bad_result', pending.op, `${pending.op}: the mod answered with an invalid result`),
    );
  }

  /** Rejects every pending call at once: the link they were sent on is gone. */
  rejectAll(reason: string): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const pending of calls) {
      clearTimeout(pending.timer);
      const message = `${pending.op}: mod link lost (${reason})`;
      pending.reject(new LinkCallError('link_lost', pending.op, message, undefined, pending.applied));
    }
  }

  #nextId(): number {
    do {
      this.#lastId = this.#lastId >= 0xffffffff ? 1 : this.#lastId + 1;
    } while (this.#calls.has(this.#lastId));
    return this.#lastId;
  }
}
