/**
 * `modgate reload`: asks the daemon serving a data dir to read its files again (keys, state, mod
 * keys, certificates and the reloadable settings) and says how it went. Nothing polls the files,
 * so a data file edited by hand while the daemon runs counts from the next reload
 * (docs/data-dir.md).
 *
 * The request goes over the data dir's admin socket (`POST /admin/v1/reload`, through
 * admin-client.ts, which finds the daemon by its daemon lock and trust-checks the data dir
 * first), and the command returns once the daemon has reloaded: exit 0, or exit 1 with the
 * reason when a broken file refused the reload (the daemon serves what it had). SIGHUP, which
 * `systemctl reload modgate` sends, does the same reload but can only log its outcome.
 */
import type { Command } from 'commander';
import { Reloaded } from '../daemon/admin/routes/reload.ts';
import { parsed } from './admin-answers.ts';
import { runningDaemonAdmin } from './admin-client.ts';
import { CliError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { DataDir } from '../daemon/store/data-dir.ts';
import { dataDirOf, withDataDirOption } from './options.ts';

export function registerReloadCommand(program: Command, io: CliIo): void {
  withDataDirOption(
    program
      .command('reload')
      .description(
        'make the running daemon read its data files, certificates and settings again, and say how it went',
      ),
  )
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      // Not openDataDirOf: a broken, loose or missing data file is for the daemon to refuse, after
      // it has reopened its audit log, so only what reaching it safely needs is checked here.
      const dataDir = await DataDir.openToReachDaemon(dataDirOf(flags, io));
      const admin = await runningDaemonAdmin(
        dataDir,
        'so there is nothing to reload: the next `modgate serve` reads the files as they are',
      );
      const answer = await admin.send({ method: 'POST', path: '/reload' }).catch((error: unknown) => {
        // The daemon refused to reload (a broken file; it serves what it had): the code
        // docs/data-dir.md documents for it, not the admin API's generic conflict.
        if (error instanceof CliError && error.code === 'conflict')
          throw new CliError(error.message, 1, 'reload_refused');
        throw error;
      });
      const { reloaded_at, restart_needed } = parsed(Reloaded(), answer.body, '/reload');
      if (flags.json) {
        printJson(io, { reloaded: true, reloaded_at, restart_needed, data_dir: dataDir.path });
        return;
      }
      printLines(
        io,
        `Reloaded: the daemon serving ${dataDir.path} read its data files, certificates and settings again.`,
        ...(restart_needed.length > 0
          ? [`Changed in the config file, in force only after a restart: ${restart_needed.join(', ')}.`]
          : []),
      );
    });
}
