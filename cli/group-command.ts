/**
 * `modgate group status`: every server of the running daemon's group (docs/group.md), whether
 * its daemon and its game link are up, when it was last seen and how many sanctions it has yet
 * to apply, and how many sanctions from the group this server's game refused. Asks the daemon
 * serving the data dir over its admin socket (`GET /admin/v1/group`, and the `total` of `GET
 * /admin/v1/group/failures`); `--json` prints `{"servers": [{"name", "server_id", "daemon_up",
 * "link_up", "last_seen_at", "pending"}], "database_connected", "refused_here"}` for scripts.
 */
import type { Command } from 'commander';
import * as z from 'zod';
import { GroupView } from '../daemon/admin/routes/group.ts';
import { DataDir } from '../daemon/store/data-dir.ts';
import { parsed } from './admin-answers.ts';
import { runningDaemonAdmin } from './admin-client.ts';
import { formatDate, formatTable } from './format.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { dataDirOf, withDataDirOption } from './options.ts';

/** The one field of GET /admin/v1/group/failures this command reads: how many refusals are kept. */
const RefusedCount = z.object({ total: z.number().int().nonnegative() });

export function registerGroupCommands(program: Command, io: CliIo): void {
  const group = program
    .command('group')
    .description("this server's group: servers sharing one moderation (docs/group.md)");
  withDataDirOption(
    group
      .command('status')
      .description('every server of the group, whether it is up, and how far behind it is'),
  )
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await DataDir.openToReachDaemon(dataDirOf(flags, io));
      const admin = await runningDaemonAdmin(
        dataDir,
        "and the group's state is the running daemon's (modgate serve)",
      );
      const answer = await admin.send({ method: 'GET', path: '/group' });
      const status = parsed(GroupView(), answer.body, '/group');
      const failures = await admin.send({ method: 'GET', path: '/group/failures?limit=1' });
      const refused = parsed(RefusedCount, failures.body, '/group/failures').total;
      if (flags.json) {
        printJson(io, {
          servers: status.servers,
          database_connected: status.database_connected,
          refused_here: refused,
        });
        return;
      }
      const rows = status.servers.map((server) => [
        server.name,
        server.server_id,
        server.daemon_up ? 'up' : 'down',
        server.link_up ? 'up' : 'down',
        formatDate(new Date(server.last_seen_at)),
        String(server.pending),
      ]);
      printLines(
        io,
        ...(status.database_connected
          ? []
          : ["The group's database is unreachable: the servers as last read."]),
        ...formatTable([['NAME', 'SERVER ID', 'DAEMON', 'GAME LINK', 'LAST SEEN', 'PENDING'], ...rows]),
        '',
        refused === 0
          ? "This server's game refused no sanction from the group."
          : `This server's game refused ${refused} ${refused === 1 ? 'sanction' : 'sanctions'} from the group: ` +
              'the panel\'s Group page, "Refused here", or GET /admin/v1/group/failures lists them.',
      );
    });
}
