/**
 * `modgate` as separate processes, the one way tests and benchmarks start them: through
 * bin/modgate.js as `npx modgate` runs it, or a built single executable. Start one, read what it
 * printed so far, stop it with a signal and get its exit code. The test suite makes a bundle of
 * the CLI its default program (`useProgram`, test/support/cli-bundle-setup.ts): each start through
 * bin/modgate.js runs tsx's loader over the daemon's whole module graph again.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';
import { eventually } from './stack.ts';

export const BIN = new URL('../bin/modgate.js', import.meta.url).pathname;

/** `modgate` from source, as `npx modgate` runs it. */
export const FROM_SOURCE: readonly string[] = [process.execPath, BIN];

let defaultProgram: readonly string[] = FROM_SOURCE;

/** What `start` runs when not told (`FROM_SOURCE` until `useProgram`). */
export function currentProgram(): readonly string[] {
  return defaultProgram;
}

/** Makes `program` what `start` runs when not told, for the rest of this process. */
export function useProgram(program: readonly string[]): void {
  defaultProgram = program;
}

export interface ModgateProcess extends ChildProcess {
  /** Everything written to stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  /** Everything written to stdout so far. */
  stdoutText(): string;
  /** Everything written to stderr so far. */
  stderrText(): string;
  /** Resolves with the exit code once the process has exited. */
  exited(): Promise<number | null>;
}

export interface StartOptions {
  /** Variables added to this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Start from `env` alone, without this process's environment (a binary run with nothing else). */
  readonly bareEnv?: boolean;
  /**
   * Another command to run it through first (`['prlimit', '--fsize=4096', '--']`), as an
   * operator's unit or shell might.
   */
  readonly wrap?: readonly string[];
  /**
   * How modgate itself is run: `currentProgram()` unless given, e.g. `FROM_SOURCE`, a built
   * single executable `[path]` or node with flags of its own (`--cpu-prof`).
   */
  readonly program?: readonly string[];
  readonly cwd?: string;
  /**
   * Append stdout and stderr to this file, as journald would take them, instead of keeping them
   * (`output()` then stays empty).
   */
  readonly logFile?: string;
}

/** Starts `modgate <args>`, keeping stdout and stderr. */
export function start(args: readonly string[], options: StartOptions = {}): ModgateProcess {
  const program = options.program ?? defaultProgram;
  const [command, ...rest] = [...(options.wrap ?? []), ...program, ...args] as [string, ...string[]];
  return startProgram(command, rest, options);
}

/**
 * `modgate <args>` run to its end, as a shell runs a command: its stdout and stderr, rejected on a
 * non-zero exit. `program` as for `start`.
 */
export function runModgate(
  args: readonly string[],
  program: readonly string[] = defaultProgram,
): Promise<{ stdout: string; stderr: string }> {
  const [command, ...rest] = program as [string, ...string[]];
  return promisify(execFile)(command, [...rest, ...args]);
}

/** Any program (nginx, Caddy, a shell), its output kept as for `start`. */
export function startProgram(
  command: string,
  args: readonly string[],
  options: Pick<StartOptions, 'env' | 'bareEnv' | 'cwd' | 'logFile'> = {},
): ModgateProcess {
  const env = options.bareEnv ? { ...options.env } : { ...process.env, ...options.env };
  const out = options.logFile === undefined ? 'pipe' : openSync(options.logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out], env, cwd: options.cwd });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => ((output += chunk), (stdout += chunk)));
  child.stderr?.on('data', (chunk) => ((output += chunk), (stderr += chunk)));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return Object.assign(child, {
    output: () => output,
    stdoutText: () => stdout,
    stderrText: () => stderr,
    exited: () => exit,
  });
}

/**
 * The signal (SIGTERM unless told, so `--cpu-prof` profiles get written), then the exit code (at
 * once if it has exited already). Any child process, not only those `start` returns.
 */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exit = once(child, 'exit');
  child.kill(signal);
  const [code] = (await exit) as [number | null];
  return code;
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

export interface ServeOptions extends StartOptions {
  /** Flags after the listen addresses (`--config FILE`, `--log-level warn`). */
  readonly extra?: readonly string[];
}

export interface Served {
  serve: ModgateProcess;
  apiPort: number;
  modPort: number;
}

/** `modgate serve` on free loopback ports for the API and the mod link, not waited for. */
export async function launchServe(dataDir: string, options: ServeOptions = {}): Promise<Served> {
  const [apiPort, modPort] = [await freePort(), await freePort()];
  const listen = ['--listen', `127.0.0.1:${apiPort}`, '--mod-listen', `127.0.0.1:${modPort}`];
  const serve = start(['serve', '--data-dir', dataDir, ...listen, ...(options.extra ?? [])], options);
  return { serve, apiPort, modPort };
}

/**
 * `launchServe`, returned once it answers `GET /healthz`. A port found free can be taken before
 * serve binds it (another test's outgoing connections draw from the same range), so a serve that
 * exits saying its address is in use is started again on new ports, twice at most; one that exits
 * for any other reason fails at once with what it printed, not after the wait. `alongside` starts
 * with each serve launched, and is stopped if that serve does not come up.
 */
export async function startServe<Alongside extends ModgateProcess | undefined = undefined>(
  dataDir: string,
  options: ServeOptions = {},
  alongside?: (served: Served) => Alongside,
): Promise<Served & { alongside: Alongside }> {
  for (let attempt = 1; ; attempt += 1) {
    const served = await launchServe(dataDir, options);
    const other = alongside?.(served) as Alongside;
    if (await answersBeforeExit(served, options)) return { ...served, alongside: other };
    if (other) await stop(other);
    const output = served.serve.output();
    if (attempt < 3 && output.includes('is already in use')) continue;
    throw new Error(`modgate serve exited before it answered /healthz:\n${output}`);
  }
}

/**
 * True once serve says it is listening and answers /healthz, false if it exits first; throws after
 * 30 s of neither. The log line makes the answer this serve's own: on a busy machine another test's
 * serve can take the port between freePort and this serve's bind, and would answer /healthz for a
 * serve that is about to exit "in use" (its admin.sock never bound). A serve started with its own
 * `--log-level` or `--log-format` may print no such JSON line and is waited for by /healthz alone.
 */
async function answersBeforeExit(served: Served, options: ServeOptions): Promise<boolean> {
  let exited = false;
  // 'close', not 'exit': by then everything it printed has been read, the reason included.
  served.serve.once('close', () => (exited = true));
  const quiet = ['--log-level', '--log-format'].some((flag) => options.extra?.includes(flag));
  const saysListening = () => quiet || served.serve.output().includes('"msg":"listening"');
  await eventually(
    async () =>
      exited ||
      (saysListening() &&
        (await fetch(`http://127.0.0.1:${served.apiPort}/healthz`).catch(() => null)) !== null),
    30_000,
  );
  return !exited;
}

/** `modgate sim` dialling the mod link on `modPort`; `extra` flags (`--players 20`) are passed on. */
export function startSim(
  dataDir: string,
  modPort: number,
  extra: readonly string[] = [],
  options: StartOptions = {},
): ModgateProcess {
  return start(['sim', '--data-dir', dataDir, '--connect', `ws://127.0.0.1:${modPort}`, ...extra], options);
}

export interface ServeAndSim extends Served {
  sim: ModgateProcess;
}

/**
 * `startServe` with `modgate sim` dialling it (with `simExtra` flags), returned once serve logs
 * that the mod connected. The simulator starts beside serve, not after it: each takes most of a
 * second to load (seconds on a busy machine), and a simulator that dials before serve listens
 * dials again on its back-off, as it would against a game server's daemon restarting. If the mod
 * never connects, both are stopped before the error is thrown.
 */
export async function startServeAndSim(
  dataDir: string,
  options: ServeOptions & { readonly simExtra?: readonly string[] } = {},
): Promise<ServeAndSim> {
  const { alongside: sim, ...served } = await startServe(dataDir, options, ({ modPort }) =>
    startSim(dataDir, modPort, options.simExtra, { program: options.program }),
  );
  try {
    await eventually(() => served.serve.output().includes('"msg":"mod connected"'), 30_000);
  } catch (error) {
    await Promise.all([stop(sim), stop(served.serve)]);
    throw error;
  }
  return { ...served, sim };
}

/** The JSON log lines printed so far (lines that are not JSON are skipped). */
export function logLines(source: ModgateProcess | string): Record<string, unknown>[] {
  const output = typeof source === 'string' ? source : source.output();
  return output.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
