/**
 * `modgate reload`: asks the daemon serving a data dir to read its files again, as SIGHUP and
 * `systemctl reload modgate` (ExecReload=/bin/kill -HUP $MAINPID) do: keys, state, mod keys,
 * certificates and the reloadable settings. Nothing polls the files, so a data file edited by
 * hand while the daemon runs counts from the next reload (docs/data-dir.md). A reload that finds
 * a broken file is refused whole; the daemon keeps serving what it had and logs why.
 *
 * The daemon is found through the data dir's daemon lock (daemon.lock, daemon/store/daemon-lock.ts),
 * which names its process whether it runs under systemd, in a container or in a shell; the
 * data dir is trust-checked first, so the pid signalled comes from a file only its owner (or
 * root) could have written.
 */
import type { Command } from 'commander';
import { readDaemonLock, type DaemonOwner } from '../daemon/store/daemon-lock.ts';
import { errnoCode } from '../daemon/store/errors.ts';
import { CliError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf, withDataDirOption } from './options.ts';

export function registerReloadCommand(program: Command, io: CliIo): void {
  withDataDirOption(
    program
      .command('reload')
      .description('make the running daemon read its data files, certificates and settings again (SIGHUP)'),
  )
    .option('--json', 'print one JSON object')
    .action(async (flags: { dataDir?: string; json?: boolean }) => {
      const dataDir = await openDataDirOf(flags, io);
      const owner = await runningDaemon(dataDir.path);
      signal(owner);
      if (flags.json) {
        printJson(io, { signalled: true, pid: owner.pid, data_dir: dataDir.path });
        return;
      }
      printLines(
        io,
        `Asked the modgate daemon (process ${owner.pid}) serving ${dataDir.path} to reload (SIGHUP).`,
        'It logs "reloaded", or "reload refused" with the file to fix; it keeps serving what it had until a reload succeeds.',
      );
    });
}

/** The daemon that holds the data dir's daemon lock, or a CliError saying none runs. */
async function runningDaemon(dir: string): Promise<DaemonOwner> {
  const lock = await readDaemonLock(dir);
  if (lock.state !== 'running') {
    throw new CliError(
      `no modgate daemon serves ${dir}, so there is nothing to reload: the next \`modgate serve\` reads the files as they are`,
      1,
      'daemon_not_running',
    );
  }
  // Only an in-process caller (a test running the CLI beside a daemon) would name itself; a
  // SIGHUP without serve's handler would end this process instead of reloading anything.
  if (lock.owner.pid === process.pid) {
    throw new CliError('the daemon runs in this process; call its reload() instead', 1, 'failed');
  }
  return lock.owner;
}

function signal(owner: DaemonOwner): void {
  try {
    process.kill(owner.pid, 'SIGHUP');
  } catch (error) {
    if (errnoCode(error) === 'EPERM') {
      throw new CliError(
        `permission denied: cannot signal the daemon (process ${owner.pid}); run this command as the user the daemon runs as (sudo -u modgate modgate reload …), or \`systemctl reload modgate\``,
        2,
        'permission_denied',
      );
    }
    if (errnoCode(error) === 'ESRCH') {
      throw new CliError(
        `the daemon (process ${owner.pid}) has just stopped; nothing to reload`,
        1,
        'daemon_not_running',
      );
    }
    throw error;
  }
}
