/** `modgate` as separate processes (bin/modgate.js, as `npx modgate` runs it), for end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export const BIN = new URL('../../bin/modgate.js', import.meta.url).pathname;

export type Running = ChildProcess & { output: () => string };

/**
 * Starts `modgate <args>`, keeping stdout and stderr. `wrap` runs it through another command
 * first (`['prlimit', '--fsize=4096', '--']`), as an operator's unit or shell might.
 */
export function start(args: string[], wrap: string[] = []): Running {
  const [command, ...rest] = [...wrap, process.execPath, BIN, ...args] as [string, ...string[]];
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

/** SIGTERM, then the exit code. */
export async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

/** The JSON log lines a process printed so far. */
export function logLines(child: Running): Array<Record<string, unknown>> {
  return child
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
