/**
 * Child processes for the end-to-end benchmark on top of the shared harness (harness/processes.ts,
 * which starts modgate itself): start an anchor script and wait for the JSON line it prints when
 * ready, and run autocannon in its own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stop, type ModgateProcess } from '../../harness/processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const AUTOCANNON = `${ROOT}node_modules/.bin/autocannon`;

export interface Child {
  process: ChildProcess;
  /** Resolves with the first line the child prints that parses as JSON. */
  ready: Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** `node --import tsx <script> ...args` with stdout read for its ready line. */
export function startScript(script: string, args: readonly string[], node = process.execPath): Child {
  return watch(
    spawn(node, ['--import', 'tsx', `${ROOT}${script}`, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    }),
  );
}

/** A modgate process the harness started, as a `Child` (ready at once: callers poll /healthz). */
export function asChild(child: ModgateProcess): Child {
  return { process: child, ready: Promise.resolve({}), stop: async () => void (await stop(child)) };
}

function watch(child: ChildProcess): Child {
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n').slice(0, -1)) {
        try {
          resolve(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not the ready line
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code} before it was ready`)));
  });
  return { process: child, ready, stop: async () => void (await stop(child)) };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time the server's processes spent per request, in µs. */
  cpuUs: number;
  /** The same, process by process, in the order of `pids`. */
  cpuUsEach: number[];
}

/** One autocannon run in its own process: keep-alive connections for `seconds`. */
export async function autocannon(
  server: { url: string; pids: readonly number[] },
  headers: Record<string, string>,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const args = ['--json', '-c', String(connections), '-d', String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const child = spawn(AUTOCANNON, [...args, server.url], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const cpuBefore = server.pids.map((pid) => cpuMs([pid]));
  const [code] = (await once(child, 'exit')) as [number | null];
  const cpuEach = server.pids.map((pid, i) => cpuMs([pid]) - (cpuBefore[i] as number));
  if (code !== 0) throw new Error(`autocannon exited ${code}`);
  const result = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUs: cpuEach.reduce((sum, ms) => sum + (ms * 1000) / Math.max(1, result.requests.total), 0),
    cpuUsEach: cpuEach.map((ms) => (ms * 1000) / Math.max(1, result.requests.total)),
  };
}

/**
 * CPU time (user + system) the processes have used so far, in ms, from /proc: what a request
 * costs the server whatever else the machine runs at the time. Linux only; 0 elsewhere.
 */
export function cpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
