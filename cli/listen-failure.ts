/**
 * A listener that could not bind, told as the operator's fix: the flag, config key and
 * environment variable that set its address and, when the address is taken, the process that
 * holds it (port-holder.ts). An address in use exits 1 (an old instance still stopping frees it,
 * so a restart may succeed); a privileged port exits 2 (a retry cannot fix it).
 */
import { formatHostPort } from '../daemon/host-port.ts';
import type { ListenError, ListenerName } from '../daemon/listen-error.ts';
import { findPortHolder } from './port-holder.ts';

/** Where each listener's address comes from, as the operator writes it. */
export const LISTENER_SETTINGS: Record<ListenerName, string> = {
  api: '--listen (config [api] listen, env MODGATE_LISTEN)',
  mod_link: '--mod-listen (config [mod_link] listen, env MODGATE_MOD_LISTEN)',
  metrics: '--metrics-listen (config [metrics] listen)',
  admin: '--admin-listen (config [admin] listen)',
};

export interface ListenFailure {
  exitCode: number;
  code: string;
  message: string;
}

export async function listenFailureMessage(error: ListenError): Promise<ListenFailure> {
  const address = formatHostPort(error.address);
  const setting = LISTENER_SETTINGS[error.listener];
  if (error.code === 'EADDRINUSE') {
    const holder = await findPortHolder(error.address.port).catch(() => null);
    const who = holder ? `process ${holder.pid} (${holder.command}) holds it` : 'another process holds it';
    return {
      exitCode: 1,
      code: 'address_in_use',
      message: `${address} is already in use: ${who}. Stop that process, or choose another address with ${setting}`,
    };
  }
  if (error.code === 'EACCES') {
    return {
      exitCode: 2,
      code: 'listen_not_permitted',
      message: `not allowed to listen on ${address} (ports below 1024 need privileges): choose a port from 1024 up with ${setting}`,
    };
  }
  return {
    exitCode: 2,
    code: 'address_not_available',
    message: `${address} is not an address of this host: choose another with ${setting}`,
  };
}
