/**
 * The one way tests reach the admin API (docs/admin.md): `adminRequest` over a data dir's
 * admin.sock (no token: the socket's permission is the authentication), or over the TCP
 * listener at `url` with an admin token. Returns the status, headers and parsed JSON body.
 */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

export interface AdminRequest {
  /** Reach `<dataDir>/admin.sock`. */
  dataDir?: string;
  /** Or this Unix socket. */
  socketPath?: string;
  /** Or the TCP listener, e.g. `http://127.0.0.1:8790` or `https://…`. */
  url?: string;
  /** An admin token, sent as `Authorization: Bearer …`. */
  token?: string;
  method?: string;
  /** Under the host, e.g. `/admin/v1/status`. */
  path: string;
  /** A value is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The CA to trust for an https `url` (a test's self-signed certificate). */
  ca?: string | Buffer;
  /** The TLS server name to ask for and check (the certificate's name, when `url` is an IP). */
  servername?: string;
  /** The local address to connect from (another client address: 127.0.0.2). */
  localAddress?: string;
  /** A keep-alive agent, to send several requests over one connection. */
  agent?: Agent;
}

export interface AdminAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; null when empty or not JSON. */
  json: unknown;
}

export function adminRequest(init: AdminRequest): Promise<AdminAnswer> {
  const headers: Record<string, string> = { host: 'localhost', ...lowerCase(init.headers ?? {}) };
  if (init.token !== undefined) headers['authorization'] ??= `Bearer ${init.token}`;
  let payload: string | undefined;
  if (init.body !== undefined) {
    payload = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const target = init.url ? new URL(init.url) : null;
  if (target) headers['host'] = init.headers?.['host'] ?? target.host;
  const options = {
    method: init.method ?? 'GET',
    path: init.path,
    headers,
    ...(target
      ? { hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port }
      : { socketPath: init.socketPath ?? join(required(init.dataDir), 'admin.sock') }),
    ...(init.ca !== undefined ? { ca: init.ca } : {}),
    ...(init.servername !== undefined ? { servername: init.servername } : {}),
    ...(init.localAddress !== undefined ? { localAddress: init.localAddress } : {}),
    ...(init.agent !== undefined ? { agent: init.agent } : {}),
  };
  const send = target?.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function required(dataDir: string | undefined): string {
  if (dataDir === undefined) throw new Error('adminRequest needs dataDir, socketPath or url');
  return dataDir;
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
