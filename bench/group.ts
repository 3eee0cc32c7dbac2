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
 *     With `--stages`, the servers log at debug level and (a) also says where the time went:
 *     each receiver's group_receive_page lines (daemon/group/group.ts) against each row's
 *     published_at; and always the CPU per ban of all serve, all sim and all PostgreSQL processes.
 * (c) catch-up: a server joins a group with `--record` sanctions on record (bench/group/catch-up.ts);
 *     with `--stages`, where its time went (its group_receive_page lines).
 * (d) outage: the database down `--outage` s while bans are made on every server at
 *     `--outage-rate` a minute (bench/group/outage.ts).
 * (e) ban wait: a /v1 ban's time in the group against a lone daemon's, with the database up and
 *     SIGSTOPped (bench/group/ban-wait.ts).
 *
 *   npx tsx bench/group.ts [--servers 5] [--scenario a,b,c,d,e] [--bans 20] [--poll 50] [--stages]
 *                          [--rate 1000] [--minutes 1] [--record 10000] [--outage 60]
 *                          [--outage-rate 120] [--wait-bans 100]
 *
 * The defaults are the figures but the server count (20 there); smaller ones make a quick
 * run. Without PostgreSQL's server binaries it says so and exits 0, so `npm run bench` runs on a
 * machine without them.
 */
import { parseArgs } from 'node:util';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../harness/postgres.ts';
import { eventually } from '../harness/stack.ts';
import { banWait } from './group/ban-wait.ts';
import { catchUp } from './group/catch-up.ts';
import { outage } from './group/outage.ts';
import {
  appliedFor,
  ban,
  banned,
  DATABASE,
  gamesMissing,
  groupCpuMs,
  load,
  postgresPids,
  receivePages,
  startGroup,
  stopServers,
  strangerId,
  summary,
  type Applied,
  type Server,
} from './group/servers.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: '5' },
    minutes: { type: 'string', default: '1' },
    scenario: { type: 'string', default: 'a,b,c,d,e' },
    bans: { type: 'string', default: '20' },
    poll: { type: 'string', default: '50' },
    rate: { type: 'string', default: '1000' },
    stages: { type: 'boolean', default: false },
    record: { type: 'string', default: '10000' },
    outage: { type: 'string', default: '60' },
    'outage-rate': { type: 'string', default: '120' },
    'wait-bans': { type: 'string', default: '100' },
  },
});
const SERVERS = Number(values.servers);
const SCENARIOS = new Set(values.scenario.split(','));
const POLL_MS = Number(values.poll);

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

async function scenarioA(cluster: PostgresCluster, servers: Server[]): Promise<string[]> {
  const [origin, ...others] = servers as [Server, ...Server[]];
  const bans = Number(values.bans);
  const shown: number[] = [];
  const answered = new Map<string, number>();
  const since = Date.now();
  const backends = postgresPids(cluster);
  const cpuBefore = groupCpuMs(servers, backends);
  for (let n = 0; n < bans; n++) {
    const player = strangerId(1, n);
    await ban(origin, player);
    answered.set(player, Date.now());
    shown.push(
      ...(await Promise.all(others.map((server) => shownAfter(server, player, answered.get(player) ?? 0)))),
    );
  }
  const cpuAfter = groupCpuMs(servers, backends);
  const players = new Set(answered.keys());
  const lags = (await Promise.all(others.map((server) => appliedFor(server, players)))).flat();
  const perBan = (kind: keyof typeof cpuAfter) => ((cpuAfter[kind] - cpuBefore[kind]) / bans).toFixed(0);
  return [
    summary(`(a) API answer → shown, poll ${POLL_MS} ms`, shown),
    summary(
      '(a) daemons’ lag_ms (created → game answered)',
      lags.map((e) => e.lag_ms),
    ),
    ...(values.stages ? await stages(cluster, others, since, answered) : []),
    `(a) CPU ms per ban, all ${servers.length} of each: serve ${perBan('serve')}, sim ${perBan('sim')}, ` +
      `postgres ${perBan('postgres')} (polling included)`,
  ];
}

/**
 * Where (a)'s time went, from the receivers' group_receive_page lines (debug level) and each
 * row's published_at: the origin's answer → its row published, published → the receiver began
 * reading (NOTIFY delivery and the receiver's turn), the wait for the connection, the query, the
 * game's answer, saving the cursor.
 */
async function stages(
  cluster: PostgresCluster,
  others: readonly Server[],
  since: number,
  answered: ReadonlyMap<string, number>,
): Promise<string[]> {
  const rows = await cluster.query(
    DATABASE,
    `SELECT id::text AS id, platform_id, (extract(epoch FROM published_at) * 1000)::float8 AS published
       FROM modgate.sanctions WHERE platform_id LIKE '76561191%'`,
  );
  const published = new Map(rows.map((row) => [String(row['id']), Number(row['published'])]));
  const pages = others.flatMap((server) => receivePages(server, since));
  const column = (name: string) => pages.map((page) => page[name] as number);
  return [
    summary(
      '(a) stage: API answer → row published',
      rows.map((row) => Number(row['published']) - (answered.get(String(row['platform_id'])) ?? NaN)),
    ),
    summary(
      '(a) stage: published → receiver starts',
      pages.map((page) => (page['started_at'] ?? NaN) - (published.get(String(page['first_id'])) ?? NaN)),
    ),
    summary('(a) stage: wait for the connection', column('wait_ms')),
    summary('(a) stage: query after the cursor', column('query_ms')),
    summary('(a) stage: game applies the page', column('apply_ms')),
    summary('(a) stage: cursor saved', column('save_ms')),
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

async function main(): Promise<void> {
  const postgres = postgresAvailable('bench/group.ts');
  if (postgres.binDir === null) return;
  const cluster = await startPostgres(postgres.binDir);
  const servers: Server[] = [];
  try {
    await cluster.createDatabase(DATABASE);
    console.log(`starting ${SERVERS} servers; load average ${load()}`);
    await startGroup(cluster, servers, SERVERS, values.stages ? 'debug' : 'info');
    console.log(`group of ${SERVERS} up; load average ${load()}`);
    const lines: string[] = [];
    const run = async (scenario: string, work: () => Promise<string[]>) => {
      if (!SCENARIOS.has(scenario)) return;
      lines.push(...(await work()), `(${scenario}) load average after it: ${load()}`);
      console.log(lines.slice(-1)[0]);
    };
    await run('a', () => scenarioA(cluster, servers));
    await run('b', () => scenarioB(cluster, servers));
    await run('c', () => catchUp(cluster, servers, Number(values.record), values.stages));
    await run('d', () => outage(cluster, servers, Number(values.outage), Number(values['outage-rate'])));
    await run('e', () => banWait(cluster, servers, Number(values['wait-bans'])));
    console.log(`\n${'scenario (times in ms)'.padEnd(44)} samples     p50     p99     max`);
    for (const line of lines) console.log(line);
    console.log(`${SERVERS} servers; load average at the end ${load()} (1, 5, 15 min)`);
  } finally {
    await stopServers(servers);
    await cluster.cleanup();
  }
}

await main();
