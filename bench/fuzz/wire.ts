/**
 * One raw TCP connection to the API listener (127.0.0.1 only): writes a case's bytes, reads the
 * answers back with ResponseReader, and cuts the connection where the case says. Kept alive
 * between well-formed cases, so most requests ride an open, pipelined connection.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { FuzzCase } from './cases.ts';
import { ResponseReader, type Response } from './response-reader.ts';

/** Well under the daemon's keep-alive timeout (docs/configuration.md, 5 s by default). */
const REUSE_WITHIN_MS = 2_000;

export interface Exchange {
  /** The answers, in order, paired with the method of the request they answer. */
  answers: Array<{ response: Response; method: string }>;
  /** Requests sent whole and never answered (the server closed, or took too long). */
  unanswered: number;
  /** The bytes that came back were not HTTP the reader could frame. */
  unreadable: string | null;
}

export class Wire {
  readonly #socket: Socket;
  readonly #reader = new ResponseReader();
  readonly #methods: string[] = [];
  #answers: Exchange['answers'] = [];
  #closed = false;
  #resetOnAnswer = false;
  #wake: (() => void) | null = null;
  #lastUsed = performance.now();

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('error', () => undefined); // resets, ours or the server's, are part of the game
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
  }

  static async open(port: number): Promise<Wire> {
    const socket = connect({ port, host: '127.0.0.1' });
    const wire = new Wire(socket);
    await once(socket, 'connect');
    return wire;
  }

  /**
   * Open, readable, and not idle for long: a connection idle near the server's keep-alive
   * timeout (5 s) may be closed just as the next batch is written, which loses the batch.
   */
  get usable(): boolean {
    const fresh = performance.now() - this.#lastUsed < REUSE_WITHIN_MS;
    return fresh && !this.#closed && !this.#socket.destroyed && this.#reader.problem === null;
  }

  /** Sends the case and waits for its answers, or the close, or `timeoutMs` of silence. */
  async exchange(fuzzCase: FuzzCase, timeoutMs: number): Promise<Exchange> {
    this.#answers = [];
    const expected = fuzzCase.methods.length;
    const reset = fuzzCase.reset;
    if (typeof reset === 'object') {
      // Cut partway through the request: no answer is owed.
      this.#socket.write(fuzzCase.bytes.subarray(0, reset.afterBytes), () => this.#socket.resetAndDestroy());
      await this.#until(() => this.#closed, timeoutMs);
      return { answers: this.#answers, unanswered: 0, unreadable: this.#reader.problem };
    }
    this.#resetOnAnswer = reset === 'on-answer';
    this.#methods.push(...fuzzCase.methods);
    this.#socket.write(fuzzCase.bytes);
    const answered = await this.#until(() => this.#answers.length >= expected || this.#closed, timeoutMs);
    if (!answered || this.#resetOnAnswer) this.destroy();
    this.#lastUsed = performance.now();
    // After an answer that closes the connection, the rest of a pipelined batch is not owed one.
    const closing = this.#answers.some(({ response }) => /close/i.test(response.headers['connection'] ?? ''));
    const unanswered = this.#resetOnAnswer || closing ? 0 : expected - this.#answers.length;
    return { answers: this.#answers, unanswered, unreadable: this.#reader.problem };
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#resetOnAnswer) {
      this.#socket.resetAndDestroy();
      return;
    }
    const methods = [...this.#methods];
    for (const response of this.#reader.push(chunk, this.#methods)) {
      this.#answers.push({ response, method: methods.shift() ?? 'GET' });
      // A stream never ends: its headers are all there is to check.
      if (response.streamed) this.#socket.destroy();
    }
    this.#wake?.();
  }

  /** Resolves true once `done()` holds, false after `timeoutMs` without any progress. */
  #until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => finish(false), timeoutMs);
      };
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.#wake = null;
        resolve(result);
      };
      this.#wake = () => (done() ? finish(true) : arm());
      if (done()) return finish(true);
      arm();
    });
  }
}
