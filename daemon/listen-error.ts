/**
 * A listener that could not bind, named: which of the daemon's three listeners (the API, the mod
 * link, the metrics) and which address. The CLI turns it into the flag and config key to change
 * and, for an address in use, the process that holds it (cli/listen-failure.ts).
 */
import { formatHostPort, type HostPort } from './host-port.ts';
import { errnoCode } from './store/errors.ts';

export type ListenerName = 'api' | 'mod_link' | 'metrics' | 'admin';

/** The bind failures an operator causes: the address is taken, needs privileges, or is not local. */
const OPERATOR_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

export class ListenError extends Error {
  constructor(
    readonly listener: ListenerName,
    readonly address: HostPort,
    readonly code: string,
    cause: unknown,
  ) {
    super(`cannot listen on ${formatHostPort(address)}: ${code}`, { cause });
    this.name = 'ListenError';
  }
}

/** Runs `start`; a bind failure the operator caused comes out as a ListenError. */
export async function listening<T>(
  listener: ListenerName,
  address: HostPort,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = errnoCode(error);
    if (code !== undefined && OPERATOR_CODES.has(code)) throw new ListenError(listener, address, code, error);
    throw error;
  }
}
