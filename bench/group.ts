/**
 * Group mode under load (docs/group.md; issue 35, "Measured"): a throwaway PostgreSQL
 * (harness/postgres.ts) and N real `modgate serve` processes, each with its `modgate sim`, all in
 * one group; the load comes from this process over HTTP, as a bot's would.
 *
 * (a) propagation: R bans through `/v1` on server 1, one at a time; for each, the time from its
 *     API answer until every other server's `GET /v1/players/{ref}/moderation` shows it (read from
 *     that server's game: the route is no-store). Each other server is polled every `--poll` ms,
 *     so a figure is an upper bound, late by at most the poll interval plus one read. Beside it,
 *     the daemons' own `lag_ms` of their `group.sanction.applied` events (the sanction's creation
 *     on its origin to this game's answer), which no polling blurs.
 * (b) sustained: `--rate` bans a minute for `--minutes`, spread round-robin over the servers, each
 *     of its own player; then no loss and no duplicate, counted three ways: the rows of
 *     `modgate.sanctions` (SQL), every server's `group.sanction.applied` events, and every game's
 *     moderation state for every player; the lag p50/p99 is the events' `lag_ms`.
 *
 *   npx tsx bench/group.ts [--servers 5] [--minutes 1] [--scenario a,b] [--bans 20] [--poll 50]
 *                          [--rate 1000]
 *
 * Scenarios (c) (a server joining a group with 10,000 sanctions) and (d) (the database down for
 * 60 s) are not written yet. Without PostgreSQL's server binaries it says so and exits 0, so
 * `npm run bench` runs on a machine without them.
 */
import { rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { makeDataDir, type TestDataDir } from '../harness/data-dir.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../harness/postgres.ts';
import { startServeAndSim, stop, type ServeAndSim } from '../harness/processes.ts';
import { eventually } from '../harness/stack.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: '5' },
    minutes: { type: 'string', default: '1' },
    scenario: { type: 'string', default: 'a,b' },
    bans: { type: 'string', default: '20' },
    poll: { type: 'string', default: '50' },
    rate: { type: 'string', default: '1000' },
  },
});
const SERVERS = Number(values.servers);
const SCENARIOS = new Set(values.scenario.split(','));
const POLL_MS = Number(values.poll);
/** Far above any load here: the bench measures the group, not the limits. */
const RATE_LIMIT = 10_000_000;
const DATABASE = 'group';

interface Server {
  name: string;
  api: string;
  key: string;
  data: TestDataDir;
  processes: ServeAndSim;
}

/** A platform id no simulator has a player with: scenario `prefix` (one digit), number `n`. */
const strangerId = (prefix: number, n: number) => `7656119${prefix}${String(n).padStart(9, '0')}`;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (p: number) => `${Math.round(percentile(sorted, p))}`.padStart(7);
  return `${name.padEnd(44)} ${String(sorted.length).padStart(7)} ${ms(50)} ${ms(99)} ${ms(100)}`;
}

async function call(server: Server, path: string, init: RequestInit = {}) {
  const answer = await fetch(`${server.api}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  const text = await answer.text();
  return { status: answer.status, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
}

async function ban(server: Server, platformId: string): Promise<void> {
  const body = JSON.stringify({ duration: 24, duration_unit: 'hours', reason: 'bench' });
  const answer = await call(server, `/v1/players/${platformId}/ban`, { method: 'POST', body });
  if (answer.status !== 200)
    throw new Error(`ban on ${server.name}: ${answer.status} ${JSON.stringify(answer.json)}`);
}

async function banned(server: Server, platformId: string): Promise<boolean> {
  const answer = await call(server, `/v1/players/${platformId}/moderation`);
  if (answer.status === 404) return false;
  if (answer.status !== 200) throw new Error(`moderation on ${server.name}: ${answer.status}`);
  return (answer.json as { ban: { banned: boolean } }).ban.banned;
}

/** One server of the group: its own data dir, key and config file naming it. */
async function startServer(cluster: PostgresCluster, index: number): Promise<Server> {
  const name = `S${index + 1}`;
  const data = await makeDataDir();
  const { key } = await data.createKey('--scopes', 'all');
  const config = `${data.dir}-group.toml`;
  await writeFile(
    config,
    `[group]\ndatabase_url = "${cluster.url(DATABASE)}"\nname = "${name}"\n` +
      `[rate_limit]\nper_key = { limit = ${RATE_LIMIT}, window_sec = 60 }\n` +
      `per_address = { limit = ${RATE_LIMIT}, window_sec = 60 }\n`,
  );
  const processes = await startServeAndSim(data.dir, {
    extra: ['--config', config],
    simExtra: ['--players', '20'],
  });
  return { name, api: `http://127.0.0.1:${processes.apiPort}`, key, data, processes };
}

/** All N, a few at a time (two cores), then until the group's table lists each with its game up. */
async function startGroup(cluster: PostgresCluster): Promise<Server[]> {
  const servers: Server[] = [];
  for (let first = 0; first < SERVERS; first += 4) {
    const batch = Array.from({ length: Math.min(4, SERVERS - first) }, (_, i) => first + i);
    servers.push(...(await Promise.all(batch.map((index) => startServer(cluster, index)))));
  }
  await eventually(async () => {
    const rows = await cluster.query(DATABASE, 'SELECT 1 FROM modgate.servers WHERE link_up');
    return rows.length === SERVERS;
  }, 120_000);
  return servers;
}

/** The time after `since` (ms) at which `server`'s game first shows `platformId` banned. */
async function shownAfter(server: Server, platformId: string, since: number): Promise<number> {
  const deadline = since + 60_000;
  for (;;) {
    const asked = Date.now();
    if (await banned(server, platformId)) return Date.now() - since;
    if (Date.now() > deadline) throw new Error(`${server.name} never showed ${platformId} banned`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, POLL_MS - (Date.now() - asked))));
  }
}

interface Applied {
  platform_id: string;
  sanction_id: number;
  lag_ms: number;
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
async function appliedFor(server: Server, players: ReadonlySet<string>): Promise<Applied[]> {
  return (await appliedEvents(server)).filter((event) => players.has(event.platform_id));
}

async function scenarioA(servers: Server[]): Promise<string[]> {
  const [origin, ...others] = servers as [Server, ...Server[]];
  const bans = Number(values.bans);
  const shown: number[] = [];
  const players = new Set<string>();
  for (let n = 0; n < bans; n++) {
    const player = strangerId(1, n);
    players.add(player);
    await ban(origin, player);
    const answered = Date.now();
    shown.push(...(await Promise.all(others.map((server) => shownAfter(server, player, answered)))));
  }
  const lags = (await Promise.all(others.map((server) => appliedFor(server, players)))).flat();
  return [
    summary(`(a) API answer → shown, poll ${POLL_MS} ms`, shown),
    summary(
      '(a) daemons’ lag_ms (created → game answered)',
      lags.map((e) => e.lag_ms),
    ),
  ];
}

/** `count` bans at `rate` a minute, round-robin over `servers`; the players banned. */
async function sustained(servers: Server[], count: number, rate: number): Promise<string[]> {
  const start = Date.now();
  const players: string[] = [];
  const pending: Promise<void>[] = [];
  for (let n = 0; n < count; n++) {
    const due = start + (n * 60_000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    const player = strangerId(2, n);
    players.push(player);
    pending.push(ban(servers[n % servers.length] as Server, player));
  }
  await Promise.all(pending);
  return players;
}

async function scenarioB(cluster: PostgresCluster, servers: Server[]): Promise<string[]> {
  const rate = Number(values.rate);
  const count = Math.round(rate * Number(values.minutes));
  const list = await sustained(servers, count, rate);
  const players = new Set(list);
  const loadAfterLoad = load();
  // Each server applies every ban made on the others; wait until each has, or a minute.
  const expected = (index: number) => list.filter((_, n) => n % servers.length !== index).length;
  const events = await settled(servers, players, expected);
  const rows = await cluster.query(
    DATABASE,
    `SELECT count(*)::int AS rows, count(DISTINCT platform_id)::int AS players
       FROM modgate.sanctions WHERE platform_id LIKE '76561192%'`,
  );
  const missingInGames = await gamesMissing(servers, list);
  const lost = events.map((each, index) => expected(index) - new Set(each.map((e) => e.sanction_id)).size);
  const duplicated = events.map((each) => each.length - new Set(each.map((e) => e.sanction_id)).size);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return [
    summary(
      `(b) ${rate}/min × ${values.minutes} min: lag_ms`,
      events.flat().map((e) => e.lag_ms),
    ),
    `(b) ${count} bans answered; database: ${rows[0]?.['rows']} rows for ${rows[0]?.['players']} players`,
    `(b) events: ${sum(lost)} lost, ${sum(duplicated)} duplicated over ${servers.length} servers`,
    `(b) games: ${missingInGames} player×server not banned of ${count * servers.length}`,
    `(b) load average just after the load: ${loadAfterLoad}`,
  ];
}

/** Every server's events once each holds `expected(index)` of them, or after a quiet minute. */
async function settled(
  servers: Server[],
  players: ReadonlySet<string>,
  expected: (index: number) => number,
): Promise<Applied[][]> {
  let events: Applied[][] = [];
  await eventually(async () => {
    events = await Promise.all(servers.map((server) => appliedFor(server, players)));
    return events.every((each, index) => each.length >= expected(index));
  }, 60_000).catch(() => undefined);
  return events;
}

/** How many (player, server) pairs of `players` a server's game does not show banned. */
async function gamesMissing(servers: Server[], players: readonly string[]): Promise<number> {
  const pairs = servers.flatMap((server) => players.map((player) => [server, player] as const));
  let missing = 0;
  const worker = async () => {
    for (let pair = pairs.pop(); pair; pair = pairs.pop()) if (!(await banned(...pair))) missing++;
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return missing;
}

async function main(): Promise<void> {
  const postgres = postgresAvailable('bench/group.ts');
  if (postgres.binDir === null) return;
  const cluster = await startPostgres(postgres.binDir);
  const servers: Server[] = [];
  try {
    await cluster.createDatabase(DATABASE);
    console.log(`starting ${SERVERS} servers; load average ${load()}`);
    servers.push(...(await startGroup(cluster)));
    console.log(`group of ${SERVERS} up; load average ${load()}`);
    const lines: string[] = [];
    if (SCENARIOS.has('a')) lines.push(...(await scenarioA(servers)));
    if (SCENARIOS.has('b')) lines.push(...(await scenarioB(cluster, servers)));
    console.log(`\n${'scenario (times in ms)'.padEnd(44)} samples     p50     p99     max`);
    for (const line of lines) console.log(line);
    console.log(`${SERVERS} servers; load average at the end ${load()} (1, 5, 15 min)`);
  } finally {
    await Promise.all(
      servers.map(async ({ processes: { serve, sim } }) => Promise.all([stop(sim), stop(serve)])),
    );
    await Promise.all(
      servers.map(async ({ data }) =>
        Promise.all([data.remove(), rm(`${data.dir}-group.toml`, { force: true })]),
      ),
    );
    await cluster.cleanup();
  }
}

await main();
