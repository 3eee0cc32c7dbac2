/**
 * Where the daemon's JSON log lines go by default: standard output, written once per turn of the
 * event loop. Every line logged while a turn runs (under load, the request lines of all the
 * requests answered in it) is appended to one string, handed to `process.stdout` when the turn
 * ends.
 *
 * Why not pino's own asynchronous destination: each of its writes goes through libuv's thread
 * pool, and handing a write to a pool thread and back costs more CPU than the line itself
 * (`npx tsx bench/logger.ts`, "server-like"; docs/operations.md, "Logs"). `process.stdout`
 * writes on the main thread: to a pipe or a socket (journald) it writes what the kernel takes at
 * once and keeps the rest in memory until the reader catches up, so a slow journald never
 * blocks a request; to a file it writes synchronously. Lines still held when the process exits
 * are handed over on its way out. An output that fails (EPIPE: the reader went away) drops the
 * lines from then on rather than take the daemon down: there is nowhere left to report them.
 */

export interface LineSink {
  write(line: string): void;
  /** Hands everything pending to the output; `done` once the output has written all of it. */
  flush(done?: (error?: Error) => void): void;
}

/** A batch this long is written at once, not held to the end of the turn (a pipe holds 64 KiB). */
const MAX_BATCH_CHARS = 65_536;

let stdoutSink: TurnBatchedSink | undefined;

/**
 * The sink on standard output: one per process, so that two loggers on it keep their lines in
 * order; whatever it holds is written when the process exits.
 */
export function stdoutLineSink(): LineSink {
  if (stdoutSink === undefined) {
    const sink = new TurnBatchedSink(process.stdout);
    process.once('exit', () => sink.flush());
    stdoutSink = sink;
  }
  return stdoutSink;
}

class TurnBatchedSink implements LineSink {
  #pending = '';
  #scheduled = false;
  #failed = false;
  readonly #output: NodeJS.WriteStream;

  constructor(output: NodeJS.WriteStream) {
    this.#output = output;
    // Every error, not only the first: an unhandled 'error' on stdout would end the process.
    output.on('error', () => {
      this.#failed = true;
      this.#pending = '';
    });
  }

  write(line: string): void {
    if (this.#failed) return;
    this.#pending += line;
    if (this.#pending.length >= MAX_BATCH_CHARS) return this.flush();
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#endOfTurn);
  }

  flush(done?: (error?: Error) => void): void {
    const pending = this.#pending;
    this.#pending = '';
    if (this.#failed) return done?.();
    if (pending === '' && !done) return;
    // An empty write still calls back in order: after everything written before it is out.
    this.#output.write(pending, done && ((error) => done(error ?? undefined)));
  }

  readonly #endOfTurn = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
