/**
 * What a CLI command may touch of the outside world, passed in so tests run commands in-process
 * and read their output: the two output streams, the environment and the clock.
 */
export interface CliOutput {
  write(text: string): unknown;
}

export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The current time; tests pass a fixed clock. */
  readonly now: () => Date;
}

export function processIo(overrides: Partial<CliIo> = {}): CliIo {
  return {
    stdout: overrides.stdout ?? process.stdout,
    stderr: overrides.stderr ?? process.stderr,
    env: overrides.env ?? process.env,
    now: overrides.now ?? (() => new Date()),
  };
}

/** Writes lines to stdout, each followed by a newline. */
export function printLines(io: CliIo, ...lines: string[]): void {
  io.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** Writes one JSON document to stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
