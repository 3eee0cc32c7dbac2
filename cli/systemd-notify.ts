/**
 * sd_notify(3) for `Type=notify` units: tells systemd the daemon is ready (after its listeners
 * are up), stopping, and alive (the watchdog). Node has no Unix datagram sockets, so this sends
 * through systemd's own `systemd-notify` tool, with `--pid` naming this process; the unit needs
 * `NotifyAccess=all` because the message comes from that child. Outside systemd (no
 * NOTIFY_SOCKET) it does nothing.
 */
import { execFile } from 'node:child_process';
import type { Logger } from '../daemon/log/log.ts';

type Env = Readonly<Record<string, string | undefined>>;

export function notifySystemd(message: string, env: Env, log: Logger): void {
  if (!env['NOTIFY_SOCKET']) return;
  execFile('systemd-notify', [`--pid=${process.pid}`, message], (error) => {
    if (error) log.warn('systemd notify failed', { message, error: error.message });
  });
}

/**
 * The watchdog (`WatchdogSec=` in the unit): systemd sets WATCHDOG_USEC, and the daemon sends
 * WATCHDOG=1 every half of it from the event loop, so a daemon whose loop is stuck stops
 * pinging and is restarted. Returns the function that stops the pings; a no-op outside systemd,
 * without a watchdog, or when WATCHDOG_PID names another process.
 */
export function startWatchdog(env: Env, log: Logger): () => void {
  const usec = Number(env['WATCHDOG_USEC']);
  const pid = env['WATCHDOG_PID'];
  if (!env['NOTIFY_SOCKET'] || !(usec > 0) || (pid !== undefined && Number(pid) !== process.pid)) {
    return () => undefined;
  }
  const intervalMs = Math.max(1, Math.floor(usec / 2_000));
  const timer = setInterval(() => notifySystemd('WATCHDOG=1', env, log), intervalMs);
  timer.unref();
  log.debug('systemd watchdog on', { interval_ms: intervalMs });
  return () => clearInterval(timer);
}
