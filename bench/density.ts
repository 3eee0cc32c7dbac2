/**
 * What many daemons cost one host (docs/performance.md, "Density"): N built binaries
 * (`dist/modgate serve`, each with its own data dir and ports) beside N bare node:http servers run
 * by the Node.js the binary embeds, which is the least a Node.js daemon can cost. Measured from
 * /proc, phase by phase:
 *
 * Each idle window starts `--warmup-seconds` after the daemons answered (or linked): V8 collects
 * start-up's garbage in its first seconds of idleness, which is not what a daemon costs for days.
 *
 * 1. idle, no mod: resident memory (VmRSS, and smaps_rollup's split into the binary's shared
 *    pages and each process's own anonymous memory) and CPU ticks over `--idle-seconds`;
 * 2. idle with a `modgate sim` linked to each daemon (heartbeats only): the same, the daemons'
 *    processes only (the simulators are other processes, as a game server would be);
 * 3. a burst of `--requests` mixed requests to every daemon from a separate load process
 *    (bench/density/load.ts), then memory every second for `--settle-seconds`: the peak, and how
 *    long until each daemon is back within 1.5× its idle RSS.
 *
 * Prints each figure per daemon beside the bare server's, their ratio against the goals of
 * docs/performance.md, and a projection for 100 and 500 daemons per host.
 *
 *   npm run build && npx tsx bench/density.ts [--daemons 20] [--idle-seconds 30] [--warmup-seconds 30]
 *        [--requests 100000] [--connections 4] [--settle-seconds 60] [--binary dist/modgate]
 *
 * `npm run bench` runs it with short settings (`--quick`, or any run under `npm run bench`): 4
 * daemons, 10-s windows, 10,000 requests each; see `QUICK` below.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeDataDir, type TestDataDir } from '../harness/data-dir.ts';
import { launchServe, startSim, stop, type ModgateProcess } from '../harness/processes.ts';
import { eventually } from '../harness/stack.ts';
import { embeddedNodePath } from '../scripts/embedded-node.ts';
import { cpuMs, startScript, type Child } from './e2e/processes.ts';
import { startBare } from './density/bare-server.ts';
import type { LoadTarget } from './density/load.ts';
import { median, memoryOf, sumMemory, type Memory } from './density/proc-stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    daemons: { type: 'string', default: '20' },
    'idle-seconds': { type: 'string', default: '30' },
    'warmup-seconds': { type: 'string', default: '30' },
    requests: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '4' },
    'settle-seconds': { type: 'string', default: '60' },
    players: { type: 'string', default: '200' },
    binary: { type: 'string', default: join(ROOT, 'dist/modgate') },
    quick: { type: 'boolean', default: false },
  },
});
/**
 * `npm run bench` runs every benchmark to its end; the full density run takes ten minutes and
 * more, so there it runs quick: 4 daemons, 10 s idle windows, 10,000 requests each, 20 s to settle.
 */
const QUICK = values.quick || process.env['npm_lifecycle_event'] === 'bench';
const N = QUICK ? 4 : Number(values.daemons);
const IDLE_S = QUICK ? 10 : Number(values['idle-seconds']);
/** From start (or the link) to the idle window: V8 collects start-up's garbage in these seconds. */
const WARMUP_S = QUICK ? 10 : Number(values['warmup-seconds']);
const REQUESTS = QUICK ? 10_000 : Number(values.requests);
const SETTLE_S = QUICK ? 20 : Number(values['settle-seconds']);
const BINARY = values.binary;
/** Enough for the burst: the product's per-key and per-address limits would answer most of it 429. */
const RATE_LIMIT = 100_000_000;

interface Daemon {
  data: TestDataDir;
  serve: ModgateProcess;
  api: string;
  modPort: number;
  key: string;
  sim?: ModgateProcess;
}

const mb = (kb: number) => (kb / 1024).toFixed(1);
/** CPU ticks of 10 ms (user + system) a process has used so far. */
const ticksOf = (pid: number) => cpuMs([pid]) / 10;
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));

async function startDaemon(work: string, index: number): Promise<Daemon> {
  const data = await makeDataDir();
  const { key } = await data.createKey('--scopes', 'all');
  const config = join(work, `modgate-${index}.toml`);
  await writeFile(
    config,
    `[rate_limit]\nper_key = { limit = ${RATE_LIMIT}, window_sec = 60 }\n` +
      `per_address = { limit = ${RATE_LIMIT}, window_sec = 60 }\n`,
  );
  const logFile = join(work, `modgate-${index}.log`);
  const served = await launchServe(data.dir, { program: [BINARY], logFile, extra: ['--config', config] });
  const api = `http://127.0.0.1:${served.apiPort}`;
  await eventually(async () => (await fetch(`${api}/healthz`).catch(() => null))?.status === 200, 30_000);
  return { data, serve: served.serve, api, modPort: served.modPort, key };
}

interface Idle {
  memory: Memory[];
  ticks: number[];
}

/** Memory at the end of an idle window of `seconds`, and the CPU ticks spent in it, per pid. */
async function idle(pids: readonly number[], seconds: number): Promise<Idle> {
  const before = pids.map(ticksOf);
  await sleep(seconds);
  return {
    ticks: pids.map((pid, i) => ticksOf(pid) - (before[i] as number)),
    memory: pids.map(memoryOf),
  };
}

function printIdle(title: string, daemons: Idle, bare: Idle | null): void {
  const d = sumMemory(daemons.memory);
  const per = (kb: number) => mb(kb / daemons.memory.length);
  const ticks = median(daemons.ticks);
  console.log(`\n${title} (${IDLE_S} s window, per daemon: median ticks, mean memory)`);
  console.log(
    `  modgate serve  RSS ${per(d.rssKb)} MB (own ${per(d.anonKb)}, binary ${per(d.fileKb)}), PSS ${per(d.pssKb)} MB,` +
      ` CPU ${ticks} ticks of 10 ms (all: ${daemons.ticks.join(' ')})`,
  );
  if (!bare) return;
  const b = sumMemory(bare.memory);
  const bper = (kb: number) => mb(kb / bare.memory.length);
  console.log(
    `  bare node:http RSS ${bper(b.rssKb)} MB (own ${bper(b.anonKb)}, binary ${bper(b.fileKb)}), PSS ${bper(b.pssKb)} MB,` +
      ` CPU ${median(bare.ticks)} ticks (all: ${bare.ticks.join(' ')})`,
  );
  console.log(
    `  ratio          RSS ${(d.rssKb / b.rssKb).toFixed(2)}× (goal ≤ 1.25×), own memory ${(d.anonKb / b.anonKb).toFixed(2)}×,` +
      ` PSS ${(d.pssKb / b.pssKb).toFixed(2)}×`,
  );
}

async function linkSims(daemons: Daemon[], work: string): Promise<void> {
  for (const [i, daemon] of daemons.entries()) {
    const logFile = join(work, `sim-${i}.log`);
    daemon.sim = startSim(daemon.data.dir, daemon.modPort, ['--players', values.players], {
      program: [BINARY],
      logFile,
    });
  }
  for (const daemon of daemons) {
    await eventually(
      async () => (await fetch(`${daemon.api}/healthz?mod=required`).catch(() => null))?.status === 200,
      60_000,
    );
  }
}

/** A player with violations in the simulator's world (the same seed for every daemon). */
async function playerWithViolations(daemon: Daemon): Promise<string> {
  const auth = { authorization: `Bearer ${daemon.key}` };
  const list = (await (await fetch(`${daemon.api}/v1/players?limit=100`, { headers: auth })).json()) as {
    data: Array<{ platform_id: string }>;
  };
  for (const player of list.data) {
    const page = await fetch(`${daemon.api}/v1/players/${player.platform_id}/violations`, { headers: auth });
    if (((await page.json()) as { data: unknown[] }).data.length >= 3) return player.platform_id;
  }
  throw new Error('no player with violations');
}

/** The burst from its own process; memory sampled every second meanwhile, the peak kept. */
async function burst(daemons: Daemon[], pids: number[]): Promise<{ peakKb: number[]; statuses: string }> {
  const ref = await playerWithViolations(daemons[0] as Daemon);
  const targets: LoadTarget[] = daemons.map((d) => ({ api: d.api, key: d.key, ref }));
  const job = { targets, requests: REQUESTS, connections: Number(values.connections) };
  const load = startScript('bench/density/load.ts', [JSON.stringify(job)]);
  const peakKb = pids.map(() => 0);
  const sample = setInterval(() => {
    for (const [i, pid] of pids.entries()) peakKb[i] = Math.max(peakKb[i] as number, memoryOf(pid).rssKb);
  }, 1000);
  try {
    const done = (await load.ready) as { statuses: Record<string, number> };
    const statuses = Object.entries(done.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    return { peakKb, statuses };
  } finally {
    clearInterval(sample);
  }
}

/** RSS every second for `SETTLE_S`; when each daemon first came within 1.5× of its idle RSS. */
async function settle(
  pids: number[],
  idleKb: number[],
): Promise<{ afterKb: number[]; backAt: (number | null)[] }> {
  const backAt: (number | null)[] = pids.map(() => null);
  let afterKb = pids.map((pid) => memoryOf(pid).rssKb);
  for (let s = 0; s <= SETTLE_S; s++) {
    afterKb = pids.map((pid) => memoryOf(pid).rssKb);
    for (const [i, kb] of afterKb.entries()) {
      if (backAt[i] === null && kb <= 1.5 * (idleKb[i] as number)) backAt[i] = s;
    }
    if (s < SETTLE_S) await sleep(1);
  }
  return { afterKb, backAt };
}

function projection(idleNoMod: Idle, idleLinked: Idle, bare: Idle): void {
  const n = idleNoMod.memory.length;
  const own = sumMemory(idleLinked.memory).anonKb / n;
  const shared = sumMemory(idleLinked.memory).fileKb / n; // mapped by every daemon, held once
  const bareOwn = sumMemory(bare.memory).anonKb / bare.memory.length;
  const bareShared = sumMemory(bare.memory).fileKb / bare.memory.length;
  const cpuShare = (ticks: number) => (ticks / 100 / IDLE_S) * 100; // % of one core
  console.log("\nprojection per host (idle, mod linked; memory = each one's own + the binary once)");
  for (const hosts of [100, 500]) {
    const modgate = (hosts * own + shared) / 1024 / 1024;
    const bareGb = (hosts * bareOwn + bareShared) / 1024 / 1024;
    const rssGb = (hosts * (own + shared)) / 1024 / 1024;
    console.log(
      `  ${hosts} daemons: ${modgate.toFixed(2)} GB (bare node:http ${bareGb.toFixed(2)} GB, ${(modgate / bareGb).toFixed(2)}×;` +
        ` summed RSS as top shows it ${rssGb.toFixed(2)} GB), CPU ${((hosts * cpuShare(median(idleLinked.ticks))) / 100).toFixed(2)} cores` +
        ` linked, ${((hosts * cpuShare(median(idleNoMod.ticks))) / 100).toFixed(2)} with no mod`,
    );
  }
}

async function main(): Promise<void> {
  if (!existsSync(BINARY)) {
    console.log(`no binary at ${BINARY}: run \`npm run build\` first; nothing measured`);
    return;
  }
  const node = await embeddedNodePath();
  const work = await mkdtemp(join(tmpdir(), 'modgate-density-'));
  const daemons: Daemon[] = [];
  const bares: Child[] = [];
  try {
    console.log(
      `${N} × ${BINARY} serve beside ${N} bare node:http servers on ${node};` +
        ` idle windows ${IDLE_S} s, burst ${REQUESTS} requests per daemon, ${SETTLE_S} s to settle`,
    );
    for (let i = 0; i < N; i++) daemons.push(await startDaemon(work, i));
    for (let i = 0; i < N; i++) bares.push(await startBare(node));
    const pids = daemons.map((d) => d.serve.pid as number);
    const barePids = bares.map((b) => b.process.pid as number);
    await sleep(WARMUP_S);
    const [idleNoMod, bare] = await Promise.all([idle(pids, IDLE_S), idle(barePids, IDLE_S)]);
    printIdle('idle, no mod', idleNoMod, bare);
    await linkSims(daemons, work);
    await sleep(WARMUP_S);
    const idleLinked = await idle(pids, IDLE_S);
    printIdle('idle, simulator linked (heartbeats only; the daemons alone)', idleLinked, bare);
    const idleKb = idleLinked.memory.map((m) => m.rssKb);
    const ticksBefore = pids.map(ticksOf);
    const { peakKb, statuses } = await burst(daemons, pids);
    const burstMs = pids.reduce((sum, pid, i) => sum + (ticksOf(pid) - (ticksBefore[i] as number)) * 10, 0);
    const { afterKb, backAt } = await settle(pids, idleKb);
    const late = backAt.filter((s) => s === null).length;
    console.log(`\nburst: ${REQUESTS} mixed requests per daemon (${statuses})`);
    console.log(
      `  serve CPU per request: ${((burstMs * 1000) / (REQUESTS * N)).toFixed(0)} µs (the mix, all daemons)`,
    );
    console.log(
      `  RSS per daemon: idle ${mb(median(idleKb))} MB, peak ${mb(median(peakKb))} MB` +
        ` (max ${mb(Math.max(...peakKb))}), ${SETTLE_S} s after ${mb(median(afterKb))} MB` +
        ` (${(median(afterKb) / median(idleKb)).toFixed(2)}× idle; goal ≤ 1.5× within 60 s)`,
    );
    console.log(
      `  back within 1.5× idle after: ${backAt.map((s) => (s === null ? '-' : `${s}s`)).join(' ')}` +
        (late ? ` (${late} of ${N} not within ${SETTLE_S} s)` : ''),
    );
    projection(idleNoMod, idleLinked, bare);
  } finally {
    await Promise.all([
      ...daemons.flatMap((d) => [d.sim ? stop(d.sim) : null, stop(d.serve)]),
      ...bares.map((b) => b.stop()),
    ]);
    await Promise.all(daemons.map((d) => d.data.remove()));
    await rm(work, { recursive: true, force: true });
  }
}

await main();
