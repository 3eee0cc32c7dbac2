/** `HOST:PORT` options (`--listen`, `--mod-listen`), IPv6 in brackets: `[::1]:8787`. */
import { isIP } from 'node:net';

export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(text: string): HostPort {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || !Number.isInteger(port) || port > 65_535) {
    throw new Error(`"${text}" is not HOST:PORT (e.g. 127.0.0.1:8787 or [::1]:8787)`);
  }
  if (match[1] !== undefined && isIP(host) !== 6) throw new Error(`"${host}" is not an IPv6 address`);
  return { host, port };
}

export function formatHostPort({ host, port }: HostPort): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Loopback only: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
