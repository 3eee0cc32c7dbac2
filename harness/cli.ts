/** Runs the modgate CLI in-process (every command, the runtime ones included) and captures what it prints. */
import { runCli } from '../cli/main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly env?: Record<string, string | undefined>;
  readonly now?: Date;
}

export async function run(argv: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const now = options.now;
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: options.env ?? {},
    now: now === undefined ? () => new Date() : () => now,
  });
  return { code, stdout, stderr };
}

/** Runs a command that must succeed and returns its stdout. */
export async function runOk(argv: readonly string[], options: RunOptions = {}): Promise<string> {
  const result = await run(argv, options);
  if (result.code !== 0) {
    throw new Error(`modgate ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout;
}
