/**
 * bench/group.ts's scenario (c): a server joins a group with `record` sanctions on record and
 * applies them all (issue 35: 10,000 within 60 s) while its `/v1` keeps answering.
 *
 * The record is written straight into a database of its own in the same cluster (the daemon's
 * own migrate() makes the schema): `record` bans of distinct players from a server "H1" that is
 * not running, each 24 hours from now. In the group's database the running servers would apply
 * them too, and load the machine the joiner is measured on. The joiner is then started and, from
 * the moment it answers, a client reads its `/v1` one request at a time (a cached
 * `GET /v1/players?limit=50` and a proxied `GET /v1/players/{ref}/moderation`, in turn) until
 * its cursor passes the last row; then as many again once it is idle. The ratio of the two is the
 * catch-up's cost to `/v1`. No loss and no duplicate: its `group.sanction.applied` events, and
 * every banned player's state in its game.
 */
import pg from 'pg';
import { migrate } from '../../daemon/group/schema.ts';
import type { PostgresCluster } from '../../harness/postgres.ts';
import { eventually } from '../../harness/stack.ts';
import {
  appliedAt,
  appliedFor,
  call,
  gamesMissing,
  lossAndRepeats,
  percentile,
  startServer,
  stopServers,
  receivePages,
  strangerId,
  summary,
  type Server,
} from './servers.ts';

const DATABASE = 'joining';
const ORIGIN = 'bench-history-server';

/** The joiner's database: the schema, the origin's row and `record` bans from it. */
async function writeRecord(cluster: PostgresCluster, record: number): Promise<void> {
  const client = new pg.Client({ connectionString: await cluster.createDatabase(DATABASE) });
  await client.connect();
  try {
    await migrate(client);
    await client.query(
      `INSERT INTO modgate.servers (server_id, name, daemon_up, link_up) VALUES ($1, 'H1', false, false)`,
      [ORIGIN],
    );
    await client.query(
      `INSERT INTO modgate.sanctions (action, kind, platform_id, origin_server, origin_local_id, actor, reason, expires_at, created_at)
       SELECT 'ban', 'bans', '76561193' || lpad(n::text, 9, '0'), $1, 'history-' || n,
              '{"name": "bench", "key_id": null, "platform_id": null, "social_id": null, "source": "api"}',
              'bench', now() + interval '24 hours', now()
         FROM generate_series(0, $2 - 1) AS n ORDER BY n`,
      [ORIGIN, record],
    );
  } finally {
    await client.end();
  }
}

/** Reads `server`'s /v1 one request at a time until `done()`, or `count` of them; their times in ms. */
async function readWhile(server: Server, done: () => boolean, count = Infinity): Promise<number[]> {
  const times: number[] = [];
  const paths = ['/v1/players?limit=50', `/v1/players/${strangerId(9, 1)}/moderation`];
  while (!done() && times.length < count) {
    const start = performance.now();
    const answer = await call(server, paths[times.length % 2] as string);
    if (answer.status !== 200 && answer.status !== 404)
      throw new Error(`/v1 on ${server.name}: ${answer.status}`);
    times.push(performance.now() - start);
  }
  return times;
}

function ratio(busy: number[], idle: number[], p: number): string {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return (percentile(sorted(busy), p) / percentile(sorted(idle), p)).toFixed(2);
}

/**
 * Where the catch-up's time went (`--stages`: the joiner logs at debug level), from its
 * group_receive_page lines: the pages, their rows, and each stage's total over all of them.
 */
function catchUpStages(joiner: Server, since: number): string[] {
  const pages = receivePages(joiner, since);
  const total = (name: string) => pages.reduce((sum, page) => sum + (page[name] ?? 0), 0);
  const rows = total('rows');
  return [
    `(c) stages: ${pages.length} pages, ${rows} rows; wait ${total('wait_ms')}, query ${total('query_ms')}, ` +
      `apply ${total('apply_ms')}, save ${total('save_ms')} ms in all` +
      (rows > 0 ? ` (apply ${(total('apply_ms') / rows).toFixed(2)} ms a row)` : ''),
    summary(
      '(c) stage: game applies a page',
      pages.map((page) => page['apply_ms'] ?? NaN),
    ),
  ];
}

export async function catchUp(
  cluster: PostgresCluster,
  _group: readonly Server[],
  record: number,
  stages = false,
): Promise<string[]> {
  await writeRecord(cluster, record);
  const spawned = Date.now();
  const joiner = await startServer(cluster, 'J1', {
    database: DATABASE,
    logLevel: stages ? 'debug' : 'info',
  });
  try {
    const linked = Date.now();
    let caughtUp = false;
    const cursor = async () => {
      const rows = await cluster.query(
        DATABASE,
        `SELECT applied_cursor::int AS c FROM modgate.servers WHERE name = 'J1'`,
      );
      return Number(rows[0]?.['c'] ?? 0);
    };
    const busyReads = readWhile(joiner, () => caughtUp);
    await eventually(async () => (caughtUp = (await cursor()) >= record), 300_000).finally(
      () => (caughtUp = true),
    );
    const busy = await busyReads;
    const idle = await readWhile(joiner, () => false, busy.length);
    const players = Array.from({ length: record }, (_, n) => strangerId(3, n));
    const events = await appliedFor(joiner, new Set(players));
    const { lost, repeated } = lossAndRepeats(events, record);
    const last = Math.max(...events.map(appliedAt));
    const missing = await gamesMissing([joiner], players);
    return [
      `(c) ${record} on record: all applied ${((last - spawned) / 1000).toFixed(1)} s after the joiner's spawn ` +
        `(${((last - linked) / 1000).toFixed(1)} s after it answered with its game linked)`,
      summary('(c) /v1 during the catch-up', busy),
      summary('(c) /v1 once idle, as many', idle),
      `(c) /v1 during / idle: p50 ${ratio(busy, idle, 50)}×, p99 ${ratio(busy, idle, 99)}×`,
      `(c) events: ${lost} lost, ${repeated} repeated; game: ${missing} of ${record} not banned`,
      ...(stages ? catchUpStages(joiner, spawned) : []),
    ];
  } finally {
    await stopServers([joiner]);
  }
}
