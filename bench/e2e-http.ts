/**
 * The daemon as a user runs it, against the least the same work could cost, side by side in one
 * run. Every server is its own process and so is the load generator (autocannon, keep-alive
 * connections), as a user's bots are other processes:
 *
 * 1. cached read, `GET /v1/players?limit=50` through `modgate serve` (auth, limits, validation,
 *    read cache, cursor, ETag, request log at info), against raw node:http writing the same bytes
 *    and headers (bench/e2e/raw-http.ts);
 * 2. proxied read, `GET /v1/players/{ref}/violations` (no-store: every request reaches
 *    `modgate sim` over the signed mod link), against a minimal proxy: node:http → one msgpack
 *    frame over ws to a mod process → JSON back, no auth (bench/e2e/min-proxy.ts, min-mod.ts).
 *
 * The daemon runs the product's defaults (log level info, no response check), with the per-key
 * and per-address limits raised as far as the load needs and no further. Rounds interleave the
 * four servers; each server's best round counts (req/s; its p50/p99 from that round).
 *
 *   npm run bench -- e2e-http
 *   npx tsx bench/e2e-http.ts [--rounds 3] [--duration 5] [--connections 50] [--binary | --modgate PATH]
 *                             [--only cached|proxied] [--log-level info] [--cpu-prof DIR]
 *
 * `--only` runs one pair. `--binary` runs dist/modgate (npm run build) instead of the source
 * through tsx, `--modgate PATH` another build of it (a release, the build before a change); the
 * anchors then run on the Node.js the binary embeds. `--log-level` other than the default info shows what the request log costs.
 * `--cpu-prof` writes V8 CPU profiles of serve and sim to DIR/serve and DIR/sim when they stop (the
 * main thread's file is the one with `.0.` after the pid). Each round also prints the CPU per
 * request of every process, so the proxied read's cost splits into serve's and sim's. Besides
 * the best round of each, it prints the paired ratio: modgate's req/s over the anchor's in the
 * same round (the anchor runs just before it), the median over the rounds. On a shared machine,
 * where the best rounds of the two may fall minutes apart, that is the steadier figure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { embeddedNodePath } from '../scripts/embedded-node.ts';
import { makeDataDir } from '../harness/data-dir.ts';
import { freePort } from '../harness/ports.ts';
import { asChild, autocannon, type Child, type LoadResult, startScript } from './e2e/processes.ts';
import { launchServe, startSim } from '../harness/processes.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    players: { type: 'string', default: '200' },
    binary: { type: 'boolean', default: false },
    modgate: { type: 'string' },
    against: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BINARY = values.modgate ?? join(ROOT, 'dist/modgate');
if (values.modgate) values.binary = true;
/** The most any modgate target can take in one 60-s window at ~50,000 req/s. */
const RATE_LIMIT = 3_000_000;
/**
 * Headers node:http writes itself; everything else the daemon sent (Content-Length included),
 * the raw anchor replays.
 */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Target {
  name: string;
  url: string;
  /** The processes doing the server's work, whose CPU time is counted. */
  pids: number[];
  best: LoadResult | null;
  /** The Authorization header its requests carry (each daemon has its own data dir and key). */
  auth: Record<string, string>;
  /** req/s of each round, in order: the paired ratio compares round by round. */
  rounds: number[];
  /** The least CPU per request of any round. */
  cpuUs: number;
  /** That round's CPU per request, process by process. */
  cpuUsEach: number[];
  /** What each of `pids` is, for the CPU breakdown. */
  roles: string[];
}

function modgateCommand(role: 'serve' | 'sim'): string[] {
  const profileDir = values['cpu-prof'] ? join(values['cpu-prof'], role) : null;
  if (values.binary) {
    if (!existsSync(BINARY)) throw new Error(`${BINARY} does not exist: run \`npm run build\` first`);
    // The executable takes no Node.js flags on its command line, only through NODE_OPTIONS.
    return profileDir ? ['env', `NODE_OPTIONS=--cpu-prof --cpu-prof-dir=${profileDir}`, BINARY] : [BINARY];
  }
  const prof = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return [process.execPath, ...prof, '--import', 'tsx', join(ROOT, 'cli/main.ts')];
}

async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > until) throw new Error(`${url} not ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function getJson(url: string, key: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
  });
  return { headers, body, json: JSON.parse(body.toString('utf8')) as Record<string, unknown> };
}

/** A player with a moderation history, so the proxied read carries data. */
async function playerWithViolations(api: string, key: string): Promise<string> {
  const list = await getJson(`${api}/v1/players?limit=100`, key);
  for (const player of list.json['data'] as Array<{ platform_id: string }>) {
    const page = await getJson(`${api}/v1/players/${player.platform_id}/violations`, key);
    if ((page.json['data'] as unknown[]).length >= 3) return player.platform_id;
  }
  throw new Error('no player with violations');
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const nodeVersion = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function report(pairs: Array<[Target, Target, number]>): void {
  console.log(
    `\n${CONNECTIONS} keep-alive connections, best of ${ROUNDS} interleaved rounds of ${SECONDS} s`,
  );
  console.log(
    'work                        server       req/s  p50 ms  p99 ms  CPU µs/req |  ratio (target)  p99 ratio  CPU ratio',
  );
  for (const [subject, anchor, target] of pairs) {
    const [s, a] = [subject.best as LoadResult, anchor.best as LoadResult];
    const row = (t: Target, r: LoadResult) =>
      `${(t === subject ? subject.name : '').padEnd(27)} ${(t === subject ? 'modgate' : 'anchor').padEnd(8)}` +
      `${fmt(r.rps).padStart(9)} ${fmt(r.p50).padStart(7)} ${fmt(r.p99).padStart(7)} ${fmt(t.cpuUs).padStart(11)} |`;
    console.log(row(anchor, a));
    console.log(
      `${row(subject, s)} ${fmt(s.rps / a.rps, 2).padStart(6)} (≥${target})` +
        `  ${fmt(s.p99 / Math.max(a.p99, 1), 2).padStart(5)} (≤1.5)  ${fmt(anchor.cpuUs / subject.cpuUs, 2).padStart(9)}`,
    );
  }
  const each = (t: Target) =>
    t.roles.map((role, i) => `${role} ${fmt(t.cpuUsEach[i] as number)}`).join(' + ');
  for (const [subject, anchor] of pairs)
    console.log(`CPU µs/req by process: ${each(subject)} | ${each(anchor)}`);
  for (const [subject, anchor] of pairs) {
    // Each round runs the anchor just before modgate: the two meet the same neighbours.
    const ratios = subject.rounds.map((rps, i) => rps / (anchor.rounds[i] as number)).sort((a, b) => a - b);
    const middle = (ratios.length - 1) / 2;
    const median = ((ratios[Math.floor(middle)] as number) + (ratios[Math.ceil(middle)] as number)) / 2;
    console.log(
      `paired req/s ratio, ${subject.name}: median ${fmt(median, 2)} of ${ratios.length} rounds ` +
        `(${fmt(ratios[0] as number, 2)} to ${fmt(ratios[ratios.length - 1] as number, 2)})`,
    );
  }
  console.log(
    "CPU µs/req: CPU time of the server's processes (serve, + sim when proxied; proxy + mod process)\n" +
      'per request, the least of any round; CPU ratio = anchor/modgate, what req/s would show on a\n' +
      'machine with a core to spare for each process.',
  );
}

function target(
  name: string,
  url: string,
  children: Child[],
  roles: string[],
  auth: Record<string, string> = {},
): Target {
  const pids = children.map((c) => c.process.pid as number);
  return { name, url, pids, roles, auth, rounds: [], best: null, cpuUs: Infinity, cpuUsEach: [] };
}

interface Daemon {
  api: string;
  key: string;
  serve: Child;
  sim: Child;
  remove(): Promise<void>;
}

/** serve and sim from `command`, on a data dir, key and ports of their own. */
async function startDaemon(
  command: (role: 'serve' | 'sim') => string[],
  work: string,
  children: Child[],
): Promise<Daemon> {
  const data = await makeDataDir();
  const { key } = await data.createKey('--scopes', 'all');
  const port = await freePort();
  const config = join(work, `modgate-${port}.toml`);
  await writeFile(
    config,
    `[rate_limit]\nper_key = { limit = ${RATE_LIMIT}, window_sec = 60 }\n` +
      `per_address = { limit = ${RATE_LIMIT}, window_sec = 60 }\n` +
      `[log]\nlevel = "${values['log-level']}"\n`,
  );
  const run = (role: 'serve' | 'sim') => ({
    program: command(role),
    logFile: join(work, `modgate-${port}.log`),
    cwd: ROOT,
  });
  const served = await launchServe(data.dir, { ...run('serve'), extra: ['--config', config] });
  const { apiPort } = served;
  const serve = asChild(served.serve);
  children.push(serve);
  const sim = asChild(startSim(data.dir, served.modPort, ['--players', values.players], run('sim')));
  children.push(sim);
  const api = `http://127.0.0.1:${apiPort}`;
  await waitFor(`${api}/healthz?mod=required`);
  return { api, key, serve, sim, remove: () => data.remove() };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'modgate-bench-'));
  const children: Child[] = [];
  const daemons: Daemon[] = [];
  try {
    const mine = await startDaemon(modgateCommand, work, children);
    daemons.push(mine);
    // The other build runs beside this one, in the same rounds, against the same anchors.
    const other = values.against ? await startDaemon(() => [values.against as string], work, children) : null;
    if (other) daemons.push(other);
    const { api, key } = mine;

    const cachedPath = '/v1/players?limit=50';
    const cached = await getJson(`${api}${cachedPath}`, key);
    const capture = join(work, 'capture.json');
    await writeFile(
      capture,
      JSON.stringify({ status: 200, headers: cached.headers, body: cached.body.toString('base64') }),
    );
    // The anchors run on the Node.js that runs modgate: the binary's own with --binary.
    const node = values.binary ? await embeddedNodePath() : process.execPath;
    const raw = startScript('bench/e2e/raw-http.ts', [capture], node);
    children.push(raw);

    const ref = await playerWithViolations(api, key);
    const proxiedPath = `/v1/players/${ref}/violations`;
    const proxied = await getJson(`${api}${proxiedPath}`, key);
    const result = join(work, 'result.json');
    await writeFile(result, JSON.stringify(proxied.json));
    const proxy = startScript(
      'bench/e2e/min-proxy.ts',
      ['players.violations', JSON.stringify({ ref, after: null, limit: 50 })],
      node,
    );
    children.push(proxy);
    const { port: proxyPort, modPort: proxyModPort } = (await proxy.ready) as {
      port: number;
      modPort: number;
    };
    const mod = startScript('bench/e2e/min-mod.ts', [`ws://127.0.0.1:${proxyModPort}`, result], node);
    children.push(mod);
    await mod.ready;
    const { port: rawPort } = (await raw.ready) as { port: number };
    console.log(
      `modgate from ${values.binary ? BINARY : 'source (tsx)'}, anchors on Node.js ${nodeVersion(node)}; cached read ${cached.body.length} bytes, ` +
        `proxied read ${proxied.body.length} bytes`,
    );

    const rawTarget = target(
      'raw node:http',
      `http://127.0.0.1:${rawPort}${cachedPath}`,
      [raw],
      ['raw node:http'],
    );
    const proxyTarget = target(
      'minimal proxy',
      `http://127.0.0.1:${proxyPort}${proxiedPath}`,
      [proxy, mod],
      ['proxy', 'mod'],
    );
    const anchors = { cached: [rawTarget, 0.7], proxied: [proxyTarget, 0.8] } as const;
    /** A daemon's two reads; `prefix` names the other build's. */
    const reads = (daemon: Daemon, prefix: string) => ({
      cached: target(
        `${prefix}cached ${cachedPath}`,
        `${daemon.api}${cachedPath}`,
        [daemon.serve],
        ['serve'],
        bearer(daemon.key),
      ),
      proxied: target(
        `${prefix}proxied …/violations`,
        `${daemon.api}${proxiedPath}`,
        [daemon.serve, daemon.sim],
        ['serve', 'sim'],
        bearer(daemon.key),
      ),
    });
    const mineReads = reads(mine, '');
    const otherReads = other ? reads(other, 'against ') : null;
    const pairs: Array<[Target, Target, number]> = [];
    for (const read of ['cached', 'proxied'] as const) {
      if (values.only && !read.startsWith(values.only)) continue;
      const [anchor, ratio] = anchors[read];
      pairs.push([mineReads[read], anchor, ratio]);
      if (!other || !otherReads) continue;
      // Same world (the simulator's default seed), so the same player and the same data; the
      // same length, since the bytes differ only in the cursor, bound to each daemon's secret.
      const [mineBody, otherBody] = [
        (await getJson(mineReads[read].url, mine.key)).body,
        (await getJson(otherReads[read].url, other.key)).body,
      ];
      if (mineBody.length !== otherBody.length) {
        throw new Error(`${otherReads[read].url}: ${otherBody.length} bytes, not ${mineBody.length}`);
      }
      pairs.push([otherReads[read], anchor, ratio]);
    }
    // Each anchor once per round, just before the builds measured against it.
    const run = [...new Set(pairs.flatMap(([subject, anchor]) => [anchor, subject]))];
    for (const target of run) await autocannon(target, target.auth, CONNECTIONS, 1); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      const line: string[] = [];
      for (const target of run) {
        const r = await autocannon(target, target.auth, CONNECTIONS, SECONDS);
        if (r.non2xx > 0 || r.errors > 0)
          throw new Error(`${target.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        target.rounds.push(r.rps);
        if (!target.best || r.rps > target.best.rps) target.best = r;
        if (r.cpuUs < target.cpuUs) [target.cpuUs, target.cpuUsEach] = [r.cpuUs, r.cpuUsEach];
        line.push(`${target.name.split(' ')[0]} ${fmt(r.rps)}`);
      }
      console.log(`round ${round}: ${line.join(', ')}`);
    }
    report(pairs);
  } finally {
    for (const child of children.reverse()) await child.stop();
    for (const daemon of daemons) await daemon.remove();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
