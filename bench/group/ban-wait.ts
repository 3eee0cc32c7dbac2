/**
 * bench/group.ts's scenario (e): how long a `/v1` ban waits on group mode (issue 35: no request
 * waits on the database more than 50 ms). `count` bans one at a time on server 1 of the group,
 * each followed by one on a lone daemon (no `[group]`, started for this) so both run under the
 * same load; then the same with every process of the database stopped (SIGSTOP: it accepts
 * nothing and answers nothing, the worst case for a client) and continued after. Prints each
 * series and the ratios of their p50 and p99 to the lone daemon's.
 */
import type { PostgresCluster } from '../../harness/postgres.ts';
import {
  percentile,
  postgresPids,
  startServer,
  stopServers,
  strangerId,
  summary,
  timedBan,
  type Server,
} from './servers.ts';

/** `count` pairs: a ban on `group` then one on `lone`; the times of each. */
async function pairs(group: Server, lone: Server, count: number, prefix: number) {
  const times = { group: [] as number[], lone: [] as number[] };
  for (let n = 0; n < count; n++) {
    times.group.push(await timedBan(group, strangerId(prefix, n)));
    times.lone.push(await timedBan(lone, strangerId(prefix, count + n)));
  }
  return times;
}

function ratios(name: string, of: number[], to: number[]): string {
  const at = (xs: number[], p: number) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      p,
    );
  return `(e) ${name}: p50 ${(at(of, 50) / at(to, 50)).toFixed(2)}×, p99 ${(at(of, 99) / at(to, 99)).toFixed(2)}×`;
}

export async function banWait(
  cluster: PostgresCluster,
  servers: readonly Server[],
  count: number,
): Promise<string[]> {
  const group = servers[0] as Server;
  const lone = await startServer(cluster, 'L1', { lone: true });
  try {
    const up = await pairs(group, lone, count, 5);
    const stopped = postgresPids(cluster);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    let down: Awaited<ReturnType<typeof pairs>>;
    try {
      down = await pairs(group, lone, count, 6);
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
    }
    return [
      summary('(e) ban, lone daemon', up.lone),
      summary('(e) ban, in the group', up.group),
      summary('(e) ban, lone daemon (beside the next)', down.lone),
      summary('(e) ban, in the group, database SIGSTOPped', down.group),
      ratios('group / lone', up.group, up.lone),
      ratios('group with the database stopped / lone', down.group, down.lone),
    ];
  } finally {
    await stopServers([lone]);
  }
}
