/**
 * docs/reverse-proxy.md as the e2e tests run it: its config blocks (changed only where the test
 * must: ports, certificate, temp paths), a real `modgate serve` + `modgate sim` configured with
 * its TOML, and TLS requests through the proxy from chosen loopback addresses (127.0.0.2, …), so
 * the daemon sees the proxy at 127.0.0.1 and must find the client through `trusted_proxies`.
 */
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { fence as fenceIn, swap as swapIn } from './doc-text.ts';
import { runOk } from '../../harness/cli.ts';
import { freePort } from '../../harness/ports.ts';
import { start, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually } from '../../harness/stack.ts';

export const readProxyDoc = () => readFile(new URL('../../docs/reverse-proxy.md', import.meta.url), 'utf8');

const DOC = 'docs/reverse-proxy.md';

/** The body of the doc's first ```LANG block. */
export const fence = (doc: string, lang: string) => fenceIn(doc, lang, DOC);

/** Replaces `from` with `to` in a block of the doc, insisting it is there. */
export const swap = (text: string, from: string, to: string) => swapIn(text, from, to, DOC);

/** GET /healthz straight from the daemon (no proxy), from a chosen loopback address. */
export function healthz(port: number, from: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/healthz', localAddress: from, agent: false },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export interface ProxiedAnswer {
  status: number;
  /** The certificate the TLS peer presented, and the TLS version. */
  fingerprint: string;
  protocol: string | null;
  /** The daemon's X-Request-Id: present only when the daemon, not the proxy, answered. */
  requestId: string | undefined;
  /** The error envelope's code, when the answer is one. */
  errorCode: string | undefined;
}

/** What the proxy config needs to know; `cert`/`key` are PEM file paths. */
export interface ProxySetup {
  dir: string;
  proxyPort: number;
  apiPort: number;
  certFile: string;
  keyFile: string;
}

export interface ProxiedModgate extends ProxySetup {
  certPem: string;
  /**
   * Keys with `server:read`: `from2` allows 127.0.0.2 only, `from3` 127.0.0.3, `anywhere` all;
   * `events` reads the event stream and runs console commands.
   */
  keys: Record<'from2' | 'from3' | 'anywhere' | 'events', string>;
  /** GET /v1/server through the proxy over TLS, from a chosen loopback address. */
  get(from: string, key: string | null, headers?: Record<string, string>): Promise<ProxiedAnswer>;
  /** Any request through the proxy over TLS, from a chosen loopback address. */
  request(from: string, key: string, exchange: ProxiedRequest): Promise<ProxiedAnswer>;
  /** GET /v1/events as a Server-Sent Events stream through the proxy. */
  stream(from: string, key: string): Promise<ProxiedStream>;
  /** Waits until `proxy` answers over TLS; throws with its output if it exits first. */
  waitFor(proxy: ModgateProcess): Promise<void>;
  fingerprint: string;
  close(): Promise<void>;
}

/**
 * `modgate serve` with the doc's TOML (plus a per-address limit of 5 to count against) and
 * `modgate sim` behind it, running once the mod is connected; a self-signed certificate for
 * `localhost` for the proxy.
 */
export async function proxiedModgate(dir: string, doc: string): Promise<ProxiedModgate> {
  const [proxyPort, apiPort, modPort] = [await freePort(), await freePort(), await freePort()];
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
  });
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await writeFile(certFile, pems.cert);
  await writeFile(keyFile, pems.private, { mode: 0o600 });

  const toml = swap(fence(doc, 'toml'), '127.0.0.1:8787', `127.0.0.1:${apiPort}`);
  await writeFile(
    join(dir, 'modgate.toml'),
    `${toml}\n[rate_limit]\nper_address = { limit = 5, window_sec = 600 }\n`,
  );
  const data = join(dir, 'data');
  // The CLI in-process (harness/cli.ts), as makeDataDir sets a data dir up: seven commands, each
  // a process of its own before, were most of this setup's time. What is proven here runs
  // in the serve and sim processes below.
  const modgate = (...args: string[]) => runOk([...args, '--data-dir', data]);
  await modgate('init');
  await modgate('plan', 'set', '--premium', 'on');
  await modgate('api', 'enable');
  const keys: Record<string, string> = {};
  for (const [name, scopes, allow] of [
    ['from2', 'server:read', ['--allow-ip', '127.0.0.2']],
    ['from3', 'server:read', ['--allow-ip', '127.0.0.3']],
    ['anywhere', 'server:read', []],
    ['events', 'events:read,commands:execute', []],
  ] as const) {
    const created = await modgate('keys', 'create', '--name', name, '--scopes', scopes, ...allow, '--json');
    keys[name] = (JSON.parse(created) as { key: string }).key;
  }
  const serve = start([
    'serve',
    '--data-dir',
    data,
    '--config',
    join(dir, 'modgate.toml'),
    '--mod-listen',
    `127.0.0.1:${modPort}`,
  ]);
  const sim = start(['sim', '--data-dir', data, '--connect', `ws://127.0.0.1:${modPort}`, '--players', '5']);
  // Each poll from its own address: /healthz counts against the per-address limit of 5.
  let poll = 0;
  await eventually(async () => {
    poll += 1;
    const from = `127.1.${Math.floor(poll / 250)}.${(poll % 250) + 1}`;
    const health = await healthz(apiPort, from).catch(() => null);
    return health?.includes('"mod_connected":true') ?? false;
  }, 60_000);

  const get = (from: string, key: string | null, headers: Record<string, string> = {}) =>
    tlsAnswer(proxyPort, pems.cert, from, key, { headers });
  return {
    dir,
    proxyPort,
    apiPort,
    certFile,
    keyFile,
    certPem: pems.cert,
    fingerprint: new X509Certificate(pems.cert).fingerprint256,
    keys: keys as ProxiedModgate['keys'],
    get,
    request: (from, key, exchange) => tlsAnswer(proxyPort, pems.cert, from, key, exchange),
    stream: (from, key) => tlsStream(proxyPort, pems.cert, from, key),
    async waitFor(proxy) {
      let attempt = 0;
      await eventually(async () => {
        attempt += 1;
        if (proxy.exitCode !== null) throw new Error(`the proxy exited: ${proxy.output()}`);
        const from = `127.2.${Math.floor(attempt / 250)}.${(attempt % 250) + 1}`;
        return (await get(from, null).catch(() => null)) !== null;
      });
    },
    async close() {
      await stop(sim);
      await stop(serve);
    },
  };
}

/** A request through the proxy: GET /v1/server unless said otherwise. */
export interface ProxiedRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

/** An open event stream through the proxy: what has arrived so far. */
export interface ProxiedStream {
  status: number;
  contentType: string | undefined;
  received(): string;
  close(): void;
}

function tlsRequest(
  port: number,
  ca: string,
  from: string,
  key: string | null,
  { method = 'GET', path = '/v1/server', headers = {}, body }: ProxiedRequest,
  onResponse: (response: IncomingMessage) => void,
  onError: (error: Error) => void,
): void {
  const json = body === undefined ? undefined : JSON.stringify(body);
  const req = request(
    {
      host: '127.0.0.1',
      port,
      method,
      path,
      localAddress: from,
      servername: 'localhost',
      ca,
      agent: false,
      // The name in the certificate, as a real client sends it: Caddy routes by Host.
      headers: {
        host: `localhost:${port}`,
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
    },
    onResponse,
  );
  req.on('error', onError);
  req.end(json);
}

function tlsAnswer(port: number, ca: string, from: string, key: string | null, exchange: ProxiedRequest) {
  return new Promise<ProxiedAnswer>((resolve, reject) =>
    tlsRequest(
      port,
      ca,
      from,
      key,
      exchange,
      (response) => {
        const socket = response.socket as TLSSocket;
        const answer = {
          status: response.statusCode ?? 0,
          fingerprint: socket.getPeerCertificate().fingerprint256,
          protocol: socket.getProtocol(),
          requestId: response.headers['x-request-id'] as string | undefined,
        };
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ ...answer, errorCode: /"code":"([a-z_]+)"/.exec(body)?.[1] }));
      },
      reject,
    ),
  );
}

function tlsStream(port: number, ca: string, from: string, key: string) {
  return new Promise<ProxiedStream>((resolve, reject) =>
    tlsRequest(
      port,
      ca,
      from,
      key,
      { path: '/v1/events', headers: { accept: 'text/event-stream' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', () => {}); // close() below destroys it
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'],
          received: () => text,
          close: () => response.destroy(),
        });
      },
      reject,
    ),
  );
}
