/**
 * `modgate` as separate processes, through bin/modgate.js as `npx modgate` runs it: start one,
 * read what it printed so far, stop it with SIGTERM and get its exit code.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './ports.ts';
import { eventually } from './stack.ts';

export const BIN = new URL('../bin/modgate.js', import.meta.url).pathname;

export type Running = ChildProcess & { output: () => string };

/**
 * Starts `modgate <args>`, keeping stdout and stderr. `wrap` runs it through another command
 * first (`['prlimit', '--fsize=4096', '--']`), as an operator's unit or shell might.
 */
export function start(args: string[], wrap: string[] = []): Running {
  const [command, ...rest] = [...wrap, process.execPath, BIN, ...args] as [string, ...string[]];
  return startProgram(command, rest);
}

/** The first of `candidates` that runs with `args` (`nginx -v`, `caddy version`), if any. */
export function installed(candidates: string[], args: string[]): string | undefined {
  return candidates.find((command) => {
    try {
      execFileSync(command, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

/** Any program (nginx, Caddy), its stdout and stderr kept as for `start`. */
export function startProgram(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Running {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return Object.assign(child, { output: () => output });
}

/**
 * `modgate serve` on free loopback ports, returned once it answers `GET /healthz`; `extra` flags
 * (`--config FILE`, `--log-level warn`) are passed on.
 */
export async function startServe(
  dataDir: string,
  extra: readonly string[] = [],
): Promise<{ serve: Running; apiPort: number }> {
  const [apiPort, modPort] = [await freePort(), await freePort()];
  const serve = start([
    'serve',
    '--data-dir',
    dataDir,
    '--listen',
    `127.0.0.1:${apiPort}`,
    '--mod-listen',
    `127.0.0.1:${modPort}`,
    ...extra,
  ]);
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${apiPort}/healthz`).catch(() => null)) !== null,
    30_000,
  );
  return { serve, apiPort };
}

/** SIGTERM, then the exit code. */
export async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

export interface ModgateProcess extends ChildProcess {
  /** Everything written to stdout so far. */
  stdout_(): string;
  /** Everything written to stderr so far. */
  stderr_(): string;
  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null>;
}

export function startModgate(args: readonly string[], env: NodeJS.ProcessEnv = {}): ModgateProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return Object.assign(child, {
    stdout_: () => stdout,
    stderr_: () => stderr,
    exited: () => exit,
  });
}

/** SIGTERM, then the exit code (at once if it has exited already). */
export async function stopModgate(child: ModgateProcess): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  return child.exited();
}

/** The JSON log lines printed so far (lines that are not JSON are skipped). */
export function logLines(source: Running | string): Record<string, unknown>[] {
  const output = typeof source === 'string' ? source : source.output();
  return output.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
