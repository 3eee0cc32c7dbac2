/**
 * sd_notify(3) for `Type=notify` units: tells systemd the daemon is ready (after both listeners
 * are up) or stopping. Node has no Unix datagram sockets, so this sends through systemd's own
 * `systemd-notify` tool, with `--pid` naming this process; the unit needs `NotifyAccess=all`
 * because the message comes from that child. Outside systemd (no NOTIFY_SOCKET) it does nothing.
 */
import { execFile } from 'node:child_process';
import type { Logger } from './log.ts';

export function notifySystemd(
  message: string,
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
): void {
  if (!env['NOTIFY_SOCKET']) return;
  execFile('systemd-notify', [`--pid=${process.pid}`, message], (error) => {
    if (error) log.warn('could not notify systemd', { message, error: error.message });
  });
}
