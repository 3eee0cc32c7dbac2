/**
 * One GET to a modgate listener on this host, from another process: `modgate doctor` asks
 * `/healthz` to tell a running modgate from another program, `modgate healthcheck` to tell a
 * container runtime whether the daemon is up. A wildcard address (`0.0.0.0`, `::`) is asked on
 * loopback, where every wildcard listener also answers.
 *
 * Over TLS the certificate is not verified: the request goes to this host's loopback, which no
 * public certificate names. Whether the certificate is valid is a check of its own (doctor's TLS
 * checks read the configured files).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { HostPort } from '../../daemon/host-port.ts';

export interface LocalAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  /** At most the first 64 KiB of the body. */
  body: string;
}

/** Where a client on this host reaches a listener bound to `address`. */
export function localHostname(address: HostPort): string {
  if (address.host === '0.0.0.0') return '127.0.0.1';
  if (address.host === '::') return '::1';
  return address.host;
}

/** The URL `localGet` asks, for messages. */
export function localUrl(address: HostPort, path: string, tls: boolean): string {
  const host = localHostname(address);
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}${path}`;
}

export function localGet(
  address: HostPort,
  path: string,
  tls: boolean,
  timeoutMs: number,
): Promise<LocalAnswer> {
  return new Promise((resolve, reject) => {
    // agent: false, connection: close: a kept-alive socket would hold the asking process open.
    const options = {
      hostname: localHostname(address),
      port: address.port,
      path,
      timeout: timeoutMs,
      agent: false,
      headers: { connection: 'close' },
    };
    const req = tls ? httpsRequest({ ...options, rejectUnauthorized: false }) : httpRequest(options);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body = (body + chunk).slice(0, 64 * 1024)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
