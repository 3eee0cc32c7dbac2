/**
 * Doctor, daemon: whether a daemon serves the data dir (its daemon.lock, daemon/store/daemon-lock.ts),
 * and what that means for the operator: commands go through its admin socket and act at once, and
 * a data file edited by hand counts only after `modgate reload`, since nothing polls the files
 * (docs/data-dir.md, "Changing files while the daemon runs").
 */
import { DAEMON_LOCK_FILE } from '../../../daemon/store/data-dir-layout.ts';
import { readDaemonLock } from '../../../daemon/store/daemon-lock.ts';
import { errorText, fail, ok, warn, type CheckResult } from './check.ts';

export async function checkDaemon(dir: string): Promise<CheckResult[]> {
  let lock;
  try {
    lock = await readDaemonLock(dir);
  } catch (error) {
    return [fail(DAEMON_LOCK_FILE, errorText(error), `rm ${dir}/${DAEMON_LOCK_FILE} while no daemon runs`)];
  }
  if (lock.state === 'none') {
    return [
      ok('daemon', 'none serves this data dir: commands write the files, and the next start reads them'),
    ];
  }
  if (lock.state === 'stale') {
    const who = lock.owner ? `process ${lock.owner.pid}, which is gone` : 'a process that is gone';
    return [
      warn(
        DAEMON_LOCK_FILE,
        `left by ${who} (a crash?)`,
        'nothing to do: the next modgate serve replaces it',
      ),
    ];
  }
  return [
    ok(
      'daemon',
      `process ${lock.owner.pid} serves this data dir: commands go through its admin socket and act at once; ` +
        'after editing a data file by hand, run `modgate reload` (nothing watches the files)',
    ),
  ];
}
