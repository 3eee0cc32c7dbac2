/**
 * The servers of bench/group.ts's group: each a real `modgate serve` with its `modgate sim`, its
 * own data dir and key, in one group on a throwaway PostgreSQL (or alone, for a lone daemon to
 * compare with), and the HTTP calls the scenarios make to them, as a bot would.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { cpuMs } from '../e2e/processes.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import type { PostgresCluster } from '../../harness/postgres.ts';
import { logLines, startServeAndSim, stop, type ServeAndSim } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

/** Far above any load here: the bench measures the group, not the limits. */
const RATE_LIMIT = 10_000_000;
export const DATABASE = 'group';

export interface Server {
  name: string;
  api: string;
  key: string;
  data: TestDataDir;
  processes: ServeAndSim;
}

/** A platform id no simulator has a player with: scenario `prefix` (one digit), number `n`. */
export const strangerId = (prefix: number, n: number) => `7656119${prefix}${String(n).padStart(9, '0')}`;

export const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** A line of the bench's table: the name, the samples' count, p50, p99 and max (NaN left out). */
export function summary(name: string, samples: number[]): string {
  const sorted = samples.filter(Number.isFinite).sort((a, b) => a - b);
  const ms = (p: number) => `${Math.round(percentile(sorted, p))}`.padStart(7);
  return `${name.padEnd(44)} ${String(sorted.length).padStart(7)} ${ms(50)} ${ms(99)} ${ms(100)}`;
}

export async function call(server: Server, path: string, init: RequestInit = {}) {
  const answer = await fetch(`${server.api}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  const text = await answer.text();
  return { status: answer.status, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
}

export async function ban(server: Server, platformId: string): Promise<void> {
  const body = JSON.stringify({ duration: 24, duration_unit: 'hours', reason: 'bench' });
  const answer = await call(server, `/v1/players/${platformId}/ban`, { method: 'POST', body });
  if (answer.status !== 200)
    throw new Error(`ban on ${server.name}: ${answer.status} ${JSON.stringify(answer.json)}`);
}

/** The milliseconds `ban` took, its answer read. */
export async function timedBan(server: Server, platformId: string): Promise<number> {
  const start = performance.now();
  await ban(server, platformId);
  return performance.now() - start;
}

export async function banned(server: Server, platformId: string): Promise<boolean> {
  const answer = await call(server, `/v1/players/${platformId}/moderation`);
  if (answer.status === 404) return false;
  if (answer.status !== 200) throw new Error(`moderation on ${server.name}: ${answer.status}`);
  return (answer.json as { ban: { banned: boolean } }).ban.banned;
}

/**
 * One server: its own data dir, key and config file naming it; in the group (of `database`,
 * default DATABASE) unless `lone`.
 * `logLevel` debug adds the group's per-page timings (group_receive_page) to its output.
 */
export async function startServer(
  cluster: PostgresCluster,
  name: string,
  options: { lone?: boolean; logLevel?: string; database?: string } = {},
): Promise<Server> {
  const data = await makeDataDir();
  const { key } = await data.createKey('--scopes', 'all');
  const config = `${data.dir}-group.toml`;
  const url = cluster.url(options.database ?? DATABASE);
  const group = options.lone ? '' : `[group]\ndatabase_url = "${url}"\nname = "${name}"\n`;
  await writeFile(
    config,
    `${group}[rate_limit]\nper_key = { limit = ${RATE_LIMIT}, window_sec = 60 }\n` +
      `per_address = { limit = ${RATE_LIMIT}, window_sec = 60 }\n`,
  );
  const processes = await startServeAndSim(data.dir, {
    extra: ['--config', config, '--log-level', options.logLevel ?? 'info'],
    simExtra: ['--players', '20'],
  });
  return { name, api: `http://127.0.0.1:${processes.apiPort}`, key, data, processes };
}

/**
 * `count` servers S1… into `servers` (so a failure part way still stops those started), one at a
 * time: on the shared two cores, two at once took over the harness's 30 s to answer at load 40.
 * Then until the group lists each with its game up.
 */
export async function startGroup(
  cluster: PostgresCluster,
  servers: Server[],
  count: number,
  logLevel?: string,
): Promise<void> {
  for (let index = 0; index < count; index++)
    servers.push(await startServer(cluster, `S${index + 1}`, { logLevel }));
  await eventually(async () => {
    const rows = await cluster.query(DATABASE, 'SELECT 1 FROM modgate.servers WHERE link_up');
    return rows.length >= count;
  }, 120_000);
}

export async function stopServers(servers: readonly Server[]): Promise<void> {
  await Promise.all(
    servers.map(async ({ processes: { serve, sim } }) => Promise.all([stop(sim), stop(serve)])),
  );
  await Promise.all(
    servers.map(async ({ data }) =>
      Promise.all([data.remove(), rm(`${data.dir}-group.toml`, { force: true })]),
    ),
  );
}

export interface Applied {
  platform_id: string;
  sanction_id: number;
  lag_ms: number;
  created_at: string;
}

/** Every `group.sanction.applied` event `server` holds, oldest first. */
async function appliedEvents(server: Server): Promise<Applied[]> {
  const events: Applied[] = [];
  let after = '0';
  for (;;) {
    const page = await call(server, `/v1/events?types=group.sanction.applied&limit=1000&after=${after}`);
    if (page.status !== 200) throw new Error(`events on ${server.name}: ${page.status}`);
    const { data, has_more, next_cursor } = page.json as {
      data: Array<{ data: Applied }>;
      has_more: boolean;
      next_cursor: string | null;
    };
    events.push(...data.map((event) => event.data));
    if (!has_more || next_cursor === null) return events;
    after = next_cursor;
  }
}

/** The events of `server` for the players in `players`. */
export async function appliedFor(server: Server, players: ReadonlySet<string>): Promise<Applied[]> {
  return (await appliedEvents(server)).filter((event) => players.has(event.platform_id));
}

/** When the game answered (ms since the epoch): the sanction's creation plus its lag. */
export const appliedAt = (event: Applied) => Date.parse(event.created_at) + event.lag_ms;

/** How many of `events` are lost (of `expected` sanctions) and how many repeat one applied before. */
export function lossAndRepeats(
  events: readonly Applied[],
  expected: number,
): { lost: number; repeated: number } {
  const distinct = new Set(events.map((e) => e.sanction_id)).size;
  return { lost: expected - distinct, repeated: events.length - distinct };
}

/** How many (player, server) pairs of `players` a server's game does not show banned. */
export async function gamesMissing(servers: readonly Server[], players: readonly string[]): Promise<number> {
  const pairs = servers.flatMap((server) => players.map((player) => [server, player] as const));
  let missing = 0;
  const worker = async () => {
    for (let pair = pairs.pop(); pair; pair = pairs.pop()) if (!(await banned(...pair))) missing++;
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return missing;
}

/** The cluster's processes: the postmaster (postmaster.pid's first line) and its children. */
export function postgresPids(cluster: PostgresCluster): number[] {
  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/**
 * CPU milliseconds so far of every serve, every sim and the cluster's processes: those of
 * `postgres` (postgresPids() when the measure began: the postmaster, its workers and the daemons'
 * backends; one that connected later, or left, would make the difference meaningless).
 */
export function groupCpuMs(servers: readonly Server[], postgres: readonly number[]) {
  const of = (pick: (server: Server) => number | undefined) =>
    servers.reduce((sum, server) => sum + cpuMs([pick(server) ?? 0]), 0);
  return {
    serve: of((server) => server.processes.serve.pid),
    sim: of((server) => server.processes.sim.pid),
    postgres: cpuMs(postgres),
  };
}

/** Each group_receive_page line (debug level) a server printed since `since` (ms). */
export function receivePages(server: Server, since: number): Record<string, number>[] {
  return logLines(server.processes.serve)
    .filter((line) => line['event'] === 'group_receive_page' && Number(line['started_at']) >= since)
    .map((line) => line as Record<string, number>);
}
