/**
 * bench/group.ts's scenario (d): the group's database down for `seconds` (`pg_ctl stop -m
 * immediate`, a crash) while bans are made on every server, round-robin at `rate` a minute, each
 * of its own player; then started again. Issue 35: every one applied on every other server within
 * 10 s of the database's return (when `pg_ctl start -w` returns). Says how long after the return
 * each server's game applied the last of them (from its `group.sanction.applied` events), how
 * long the bans took to answer meanwhile, and counts loss and repeats (rows in the log, each
 * server's events).
 */
import type { PostgresCluster } from '../../harness/postgres.ts';
import { eventually } from '../../harness/stack.ts';
import {
  appliedAt,
  appliedFor,
  DATABASE,
  lossAndRepeats,
  strangerId,
  summary,
  timedBan,
  type Applied,
  type Server,
} from './servers.ts';

/** Bans at `rate` a minute for `seconds`, round-robin; the players and which server made each. */
async function bansMeanwhile(servers: readonly Server[], seconds: number, rate: number) {
  const start = Date.now();
  const made: { player: string; origin: number }[] = [];
  const answers: Promise<number>[] = [];
  for (let n = 0; Date.now() - start < seconds * 1000; n++) {
    const due = start + (n * 60_000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    if (Date.now() - start >= seconds * 1000) break;
    const origin = n % servers.length;
    made.push({ player: strangerId(4, n), origin });
    answers.push(timedBan(servers[origin] as Server, strangerId(4, n)));
  }
  return { made, answered: await Promise.all(answers) };
}

export async function outage(
  cluster: PostgresCluster,
  servers: readonly Server[],
  seconds: number,
  rate: number,
): Promise<string[]> {
  await cluster.stop({ mode: 'immediate' });
  const { made, answered } = await bansMeanwhile(servers, seconds, rate);
  await cluster.start();
  const back = Date.now();
  const players = new Set(made.map((ban) => ban.player));
  const expected = servers.map((_, index) => made.filter((ban) => ban.origin !== index).length);
  let events: Applied[][] = [];
  await eventually(async () => {
    events = await Promise.all(servers.map((server) => appliedFor(server, players)));
    return events.every(
      (each, index) => new Set(each.map((e) => e.sanction_id)).size >= (expected[index] ?? 0),
    );
  }, 120_000).catch(() => undefined);
  const rows = await cluster.query(
    DATABASE,
    `SELECT count(*)::int AS rows FROM modgate.sanctions WHERE platform_id LIKE '76561194%'`,
  );
  const counts = events.map((each, index) => lossAndRepeats(each, expected[index] ?? 0));
  const sum = (pick: (c: { lost: number; repeated: number }) => number) =>
    counts.reduce((a, c) => a + pick(c), 0);
  const lastPerServer = events.map((each) => (Math.max(...each.map(appliedAt)) - back) / 1000);
  return [
    `(d) ${made.length} bans while the database was down ${seconds} s; ${rows[0]?.['rows']} rows after`,
    summary('(d) ban answered while it was down', answered),
    `(d) last applied after its return, per server: ${lastPerServer.map((s) => s.toFixed(1)).join(', ')} s`,
    summary(
      '(d) each applied, ms after its return',
      events.flat().map((e) => appliedAt(e) - back),
    ),
    `(d) events: ${sum((c) => c.lost)} lost, ${sum((c) => c.repeated)} repeated over ${servers.length} servers`,
  ];
}
