/**
 * The logrotate file `modgate service install` writes to /etc/logrotate.d/modgate: it rotates
 * `audit.jsonl` of modgate.service (/var/lib/modgate) and of every modgate@NAME instance
 * (/var/lib/modgate/NAME) the only way that loses no line: move the file, then reload (SIGHUP),
 * on which the daemon finishes the lines queued for the moved file and opens a new one
 * (docs/configuration.md, "Rotating the audit log"). Never `copytruncate`: it loses every line
 * written between the copy and the truncation.
 *
 * - Written once, like the env file: the operator may change the schedule or the retention, and
 *   a reinstall keeps the change. `service uninstall` leaves it (the data dir stays too, and
 *   `missingok` makes it harmless without one).
 * - `delaycompress`: the newest rotated file stays plain until the next run, as the daemon may
 *   still be finishing lines in it when logrotate returns.
 * - `su USER USER`: logrotate runs as root, and the data dir belongs to the daemon's user, who
 *   could plant a link at audit.jsonl.1 for root's rename, gzip and unlink to follow. With `su`
 *   logrotate does its work in the data dir as that user, so whatever it creates belongs to the
 *   user the daemon trusts (docs/data-dir.md).
 * - `create 0600 USER USER`: the new file as the daemon would create it (the data dir refuses
 *   audit.jsonl looser than 0600); the group is the user's own (`useradd --user-group`).
 * - `systemctl try-reload-or-restart`: reloads the units that are running and no others, so a
 *   host that runs only instances (or only modgate.service) gets no error; the glob matches the
 *   loaded instances. `|| true`: a failed reload must not mark the rotation failed (the moved
 *   file would be rotated again next time), and the daemon still writes every line, to the
 *   moved file, until it is reloaded.
 */
import { UNIT_MARKER } from './units.ts';

export const LOGROTATE_DIR = '/etc/logrotate.d';
export const LOGROTATE_FILE = 'modgate';

/** `dataRoot`: the single unit's data dir, parent of the instances' (/var/lib/modgate). */
export function renderLogrotate(options: { user: string; dataRoot: string }): string {
  const root = options.dataRoot;
  return [
    UNIT_MARKER,
    '# (once: it is yours to change, and a reinstall keeps it). Rotates the audit log of modgate',
    '# and of every modgate@NAME instance: moved away, then a reload makes the daemon open a new one.',
    `${root}/audit.jsonl ${root}/*/audit.jsonl {`,
    '    weekly',
    '    rotate 12',
    '    compress',
    '    delaycompress',
    '    missingok',
    '    notifempty',
    `    su ${options.user} ${options.user}`,
    `    create 0600 ${options.user} ${options.user}`,
    '    sharedscripts',
    '    postrotate',
    "        systemctl try-reload-or-restart modgate.service 'modgate@*.service' >/dev/null 2>&1 || true",
    '    endscript',
    '}',
    '',
  ].join('\n');
}
