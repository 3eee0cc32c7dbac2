/**
 * The send queue of one link (PROTOCOL §4.2): the bodies sent during one turn of the event loop
 * are sealed together, once, in as few frames as the batch bounds allow, and each frame is one
 * WebSocket message. A lone body is flushed in the same loop iteration; a burst shares its tags.
 *
 * Why the flush runs in `setImmediate` and not in a microtask: the work that produces bodies in
 * one batch does not finish in one microtask checkpoint. On the mod, each request of a frame is
 * answered by an async handler whose result settles several microtask hops later, so a flush
 * queued as a microtask by the first answer fires before the others are in. On the daemon, the
 * HTTP requests that arrive together are handled in separate I/O callbacks of one poll phase,
 * and microtasks drain after each callback. The check phase runs once those callbacks and their
 * microtasks are done, immediately after the poll phase, without waiting on a timer or on I/O: a
 * lone message leaves in the same loop iteration it was produced in.
 */
import { encodeBody, splitBatches, type BatchBounds, type EncodedBody } from './frame-batch.ts';
import type { FrameBody } from './frames.ts';
import type { Session } from './session.ts';

export interface FrameSenderOptions {
  session: Session;
  bounds: BatchBounds;
  /** Writes one sealed frame as one binary WebSocket message. */
  write: (frame: Uint8Array) => void;
  /** A scheduled flush that throws (a local fault, never the peer's doing) is reported here. */
  onFault: (error: unknown) => void;
  /** Runs the flush once the current turn's work is done; `setImmediate` unless a test drives it. */
  schedule?: (flush: () => void) => void;
}

const runSoon = (flush: () => void): void => {
  setImmediate(flush);
};

export class FrameSender {
  #queue: EncodedBody[] = [];
  #scheduled = false;
  readonly #schedule: (flush: () => void) => void;
  readonly #options: FrameSenderOptions;

  constructor(options: FrameSenderOptions) {
    this.#options = options;
    this.#schedule = options.schedule ?? runSoon;
  }

  /** Bodies queued and not yet sealed. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Queues one body for the next flush. Throws TypeError for a body with no plain msgpack form
   * and RangeError for one no frame can carry; nothing is queued then, and no seq is used.
   */
  send(body: FrameBody): void {
    this.#queue.push(encodeBody(body, this.#options.bounds));
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(this.#scheduledFlush);
  }

  /** Seals and writes every queued body now, in order, one frame per batch. */
  flush(): void {
    if (this.#queue.length === 0) return;
    const queued = this.#queue;
    this.#queue = [];
    const { session, bounds, write } = this.#options;
    for (const batch of splitBatches(queued, bounds)) {
      write(session.sealBatch(batch.map((body) => body.bytes)));
    }
  }

  /** Drops every queued body: the link is being rejected or is gone. */
  discard(): void {
    this.#queue = [];
  }

  readonly #scheduledFlush = (): void => {
    this.#scheduled = false;
    try {
      this.flush();
    } catch (error) {
      this.#queue = [];
      this.#options.onFault(error);
    }
  };
}
