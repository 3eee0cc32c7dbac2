/**
 * The authenticated session as a state machine apart from the socket (PROTOCOL §4): one
 * `Session` per link and side. `open(bytes)` takes one received WebSocket message and returns
 * its batch of frame bodies, in order, or the `ProtocolError` to close with; after the first
 * rejection the session is `failed` and answers every later message with that same error, so it
 * is reported once. Which bodies share a frame is the sender's business (`frame-sender.ts`).
 *
 *   mod:    await_ready ─ready─▶ open        daemon: open (it sends `ready` first, §4.5)
 *   either: any rejection ─▶ failed
 */
import { aeadKey, openFrame, sealFrame, type AeadKey } from './aead.ts';
import { decodeWith, encode, resolveLimits, type CodecLimits, type FloatPaths } from './codec.ts';
import { ProtocolError, type Outcome } from './errors.ts';
import { batchPlaintext } from './frame-batch.ts';
import { MAX_FRAME_BODIES, parseFrameBatch, type FrameBody, type ReadyFrame, type Role } from './frames.ts';

export type SessionState = 'await_ready' | 'open' | 'failed';

export interface SessionKeys {
  role: Role;
  sendKey: Uint8Array;
  receiveKey: Uint8Array;
}

export interface SessionOptions {
  /**
   * The daemon's side: the `ready` body it sends (PROTOCOL §4.5), `{t:'ready'}` by default. Unless
   * it announces `events: true`, an `events` body from the mod is `unexpected_frame` (§9.1).
   */
  ready?: ReadyFrame;
}

/** The seq counter stops here; a link that got this far reconnects (PROTOCOL §4.3). */
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export class Session {
  readonly role: Role;
  readonly peer: Role;
  readonly limits: CodecLimits;
  #stateValue: SessionState;
  #failure: ProtocolError | null = null;
  readonly #sendKey: AeadKey;
  readonly #receiveKey: AeadKey;
  #lastSent = 0;
  #expected = 1;
  readonly #eventsAnnounced: boolean;

  constructor(keys: SessionKeys, limits?: Partial<CodecLimits>, options: SessionOptions = {}) {
    this.role = keys.role;
    this.peer = keys.role === 'daemon' ? 'mod' : 'daemon';
    this.limits = resolveLimits(limits);
    this.#sendKey = aeadKey(keys.sendKey);
    this.#receiveKey = aeadKey(keys.receiveKey);
    this.#stateValue = keys.role === 'mod' ? 'await_ready' : 'open';
    this.#eventsAnnounced = keys.role === 'daemon' && options.ready?.events === true;
  }

  get state(): SessionState {
    return this.#stateValue;
  }

  /** The error the session failed with, once it has. */
  get error(): ProtocolError | null {
    return this.#failure;
  }

  /** The seq the next received frame must carry (PROTOCOL §4.3). */
  get expectedSeq(): number {
    return this.#expected;
  }

  /**
   * Seals a batch of bodies into one frame with the next seq (PROTOCOL §4.1–§4.2). Throws
   * TypeError for a body with no plain msgpack form and RangeError for an empty batch, one of
   * more than `MAX_FRAME_BODIES` bodies or one over `limits.maxBytes`; the seq is only consumed
   * by a frame that is actually produced.
   */
  seal(bodies: readonly FrameBody[]): Uint8Array {
    return this.sealBatch(bodies.map((body) => encode(body, this.limits.maxDepth - 1)));
  }

  /** `seal` for bodies already encoded one by one (the send queue encodes each as it is queued). */
  sealBatch(bodies: readonly Uint8Array[]): Uint8Array {
    if (this.#stateValue !== 'open') throw new Error(`cannot send in session state ${this.#stateValue}`);
    if (bodies.length === 0 || bodies.length > MAX_FRAME_BODIES) {
      throw new RangeError(`a frame holds 1 to ${MAX_FRAME_BODIES} bodies, not ${bodies.length}`);
    }
    const plaintext = batchPlaintext(bodies);
    if (plaintext.length > this.limits.maxBytes) {
      throw new RangeError(`frame plaintext of ${plaintext.length} bytes exceeds ${this.limits.maxBytes}`);
    }
    if (this.#lastSent >= MAX_SEQ) throw new RangeError('the session has exhausted its sequence numbers');
    this.#lastSent += 1;
    return sealFrame(this.#sendKey, this.#lastSent, plaintext);
  }

  /**
   * Opens one received frame (PROTOCOL §4.6): tag, then seq, then codec, then the batch and each
   * body's shape, then the state rule. All or nothing: a frame with one bad body is rejected
   * whole, so none of its bodies reaches the caller.
   */
  open(bytes: Uint8Array): Outcome<FrameBody[]> {
    if (this.#failure) return { ok: false, error: this.#failure };
    const opened = openFrame(this.#receiveKey, bytes, this.limits.maxBytes);
    if (!opened.ok) return this.fail(opened.error);
    const { seq, plaintext } = opened.value;
    if (seq !== this.#expected) {
      const how = seq < this.#expected ? 'repeated or reordered' : 'skipped ahead';
      return this.fail(new ProtocolError('sequence', `expected seq ${this.#expected}, got ${seq} (${how})`));
    }
    this.#expected += 1;
    const floats: FloatPaths = [];
    const decoded = decodeWith(plaintext, this.limits, floats);
    if (!decoded.ok) return this.fail(decoded.error);
    const batch = parseFrameBatch(decoded.value, this.peer, floats.length > 0 ? new Set(floats) : undefined);
    if (!batch.ok) return this.fail(batch.error);
    const misplaced = this.#advance(batch.value);
    if (misplaced) return this.fail(misplaced);
    return batch;
  }

  /**
   * The state rules, body by body: the mod's first body is `ready`, and `ready` never comes again
   * (PROTOCOL §4.5); a daemon takes `events` only on a session whose `ready` announced them (§9.1).
   */
  #advance(bodies: readonly FrameBody[]): ProtocolError | null {
    for (const body of bodies) {
      if (this.#stateValue === 'await_ready') {
        if (body.t !== 'ready') return new ProtocolError('unexpected_frame', `"${body.t}" before "ready"`);
        this.#stateValue = 'open';
      } else if (body.t === 'ready') {
        return new ProtocolError('unexpected_frame', '"ready" after the session opened');
      } else if (body.t === 'events' && !this.#eventsAnnounced) {
        return new ProtocolError(
          'unexpected_frame',
          '"events" on a session whose ready did not announce them',
        );
      }
    }
    return null;
  }

  /** Marks the session failed from outside (e.g. a timeout), so later frames are refused. */
  fail(error: ProtocolError): { ok: false; error: ProtocolError } {
    if (!this.#failure) {
      this.#failure = error;
      this.#stateValue = 'failed';
    }
    return { ok: false, error: this.#failure };
  }
}
