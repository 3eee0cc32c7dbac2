import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { startHttpServer } from '../../../daemon/http/node-adapter.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';
import { raw } from '../../support/raw-http.ts';
import { HOSTILE_REQUESTS, sendThenReset } from '../../support/resets.ts';
import { TEST_ROUTES } from '../../support/test-routes.ts';

describe('HTTP listener', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      daemon: { routes: TEST_ROUTES, http: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } },
    });
  });
  afterAll(() => stack.close());

  it('serves GET /v1/server over a real socket', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/server`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('api-version')).toBe('1.0');
  });

  it('sends each body with its Content-Length, not chunked', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) =>
      socket.write(
        `GET /v1/server HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const [head = '', body = ''] = reply.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    expect(head).toMatch(new RegExp(`content-length: ${Buffer.byteLength(body)}\r?$`, 'im'));
    expect(JSON.parse(body)).toHaveProperty('server_id');
  });

  const head = (extra: string) =>
    `POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stack.key}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  it('counts a no-store answer written as text in bytes: Content-Length of its UTF-8, the text intact', async () => {
    // A no-store answer's body is JSON text, written with the head; its length is not its
    // string length once it holds anything but ASCII.
    const name = 'Zoë — 松本 🚀';
    const payload = JSON.stringify({ name });
    const reply = await raw(stack.daemon.api.port, (socket) =>
      socket.write(head(`Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n`) + payload),
    );
    const [status = '', latin1 = ''] = reply.split('\r\n\r\n'); // raw() reads bytes as latin1
    const body = Buffer.from(latin1, 'latin1');
    expect(status).toMatch(/^HTTP\/1\.1 201/);
    expect(status).toMatch(new RegExp(`content-length: ${body.length}\r?$`, 'im'));
    expect(body.length).toBeGreaterThan(body.toString('utf8').length);
    expect(JSON.parse(body.toString('utf8'))).toEqual({ name });
  });

  it('refuses an announced oversize body with 413 before reading it, and closes the connection', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) =>
      socket.write(head('Content-Length: 5000000\r\n') + '{'),
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply.toLowerCase()).toContain('connection: close');
  });

  it('refuses a chunked body with 413 once the stream passes the limit', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) => {
      socket.write(head('Transfer-Encoding: chunked\r\n'));
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 20; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
  });

  it('accepts a chunked body under the limit', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) => {
      socket.write(head('Transfer-Encoding: chunked\r\nConnection: close\r\n'));
      socket.write('e\r\n{"name":"abc"}\r\n0\r\n\r\n');
    });
    expect(reply).toMatch(/^HTTP\/1\.1 201/);
  });

  it('stops a slowloris client whose headers never finish', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) =>
      socket.write('GET /v1/server HTTP/1.1\r\nHost: x\r\n'),
    );
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('caps concurrent connections, answering those over the cap 429', async () => {
    const capped = await startStack({ daemon: { http: { maxConnections: 2 } }, sim: false });
    try {
      const replies: string[] = [];
      const sockets = await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          const socket = connect(capped.daemon.api.port, '127.0.0.1');
          replies[i] = '';
          socket.on('data', (chunk: Buffer) => (replies[i] += chunk.toString('latin1')));
          await once(socket, 'connect');
          return socket;
        }),
      );
      // One address holding every connection makes no room for itself.
      await eventually(() => replies.filter((reply) => reply.startsWith('HTTP/1.1 429')).length === 3);
      expect(replies.filter((reply) => reply === '')).toHaveLength(2);
      for (const socket of sockets) socket.destroy();
    } finally {
      await capped.close();
    }
  });

  it('refuses to serve plain HTTP on a non-loopback address', async () => {
    await expect(
      startHttpServer(async () => ({ status: 200, headers: {}, body: null }), {
        listen: { host: '0.0.0.0', port: 0 },
        log: silentLogger,
      }),
    ).rejects.toThrow(/--tls-cert/);
  });
});

describe('HTTPS listener', () => {
  let stack: Stack;
  let dir: string;
  let cert: string;
  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    cert = pems.cert;
    dir = await mkdtemp(join(tmpdir(), 'modgate-tls-'));
    await writeFile(join(dir, 'cert.pem'), pems.cert);
    await writeFile(join(dir, 'key.pem'), pems.private);
    stack = await startStack({
      daemon: {
        listen: { host: '0.0.0.0', port: 0 },
        tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  function get(options: { minVersion?: 'TLSv1' | 'TLSv1.1'; maxVersion?: 'TLSv1' | 'TLSv1.1' } = {}) {
    return new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: stack.daemon.api.port,
          path: '/v1/server',
          headers: { authorization: `Bearer ${stack.key}` },
          ca: cert,
          servername: 'localhost',
          ...options,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('serves the API over TLS on any address with the configured certificate', async () => {
    expect(await get()).toBe(200);
  });

  it('refuses TLS older than 1.2', async () => {
    await expect(get({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1' })).rejects.toThrow();
  });

  it('makes room at the global cap by closing an idle keep-alive TLS connection of the busiest address', async () => {
    const full = await startStack({
      sim: false,
      daemon: {
        tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
        http: { maxConnections: 2 },
      },
    });
    const ask = (agent: Agent | false, localAddress: string) =>
      askHealthz(full.daemon.api.port, agent, localAddress);
    // Two keep-alive connections from 127.0.0.2, each idle after one request.
    const agents = [1, 2].map(() => new Agent({ keepAlive: true, maxSockets: 1, ca: cert }));
    try {
      expect(await Promise.all(agents.map((agent) => ask(agent, '127.0.0.2')))).toEqual([200, 200]);
      expect(await ask(false, '127.0.0.1')).toBe(200);
    } finally {
      for (const agent of agents) agent.destroy();
      await full.close();
    }
  });

  it('makes room at the global cap by closing a TLS connection of the busiest address still sending its head', async () => {
    const full = await startStack({
      sim: false,
      daemon: {
        tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
        http: { maxConnections: 2 },
      },
    });
    const stalled = [1, 2].map(() => {
      const tcp = connect({ host: '127.0.0.1', port: full.daemon.api.port, localAddress: '127.0.0.2' });
      tcp.on('error', () => undefined);
      const socket = tlsConnect({ socket: tcp, ca: cert, servername: 'localhost' });
      socket.on('error', () => undefined);
      socket.once('secureConnect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
      return socket;
    });
    try {
      await Promise.all(stalled.map((socket) => once(socket, 'secureConnect')));
      expect(await askHealthz(full.daemon.api.port, false, '127.0.0.1')).toBe(200);
    } finally {
      for (const socket of stalled) socket.destroy();
      await full.close();
    }
  });

  /** GET /healthz over TLS from `localAddress`; its status, or 0 when the connection failed. */
  function askHealthz(port: number, agent: Agent | false, localAddress: string) {
    return new Promise<number>((resolve) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: '/healthz', ca: cert, servername: 'localhost', agent, localAddress },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end();
    });
  }

  /** Over TLS: writes `request`, and resets the TCP connection under it as the answer arrives. */
  function tlsThenReset(request: string): Promise<void> {
    return new Promise((resolve) => {
      const tcp = connect({ host: '127.0.0.1', port: stack.daemon.api.port });
      tcp.on('error', () => undefined);
      tcp.on('close', () => resolve());
      const socket = tlsConnect({ socket: tcp, rejectUnauthorized: false });
      socket.on('error', () => undefined);
      socket.on('secureConnect', () => socket.write(request));
      socket.on('data', () => tcp.resetAndDestroy());
    });
  }

  it('stays up when clients reset CONNECTs and upgrades over TLS as the answer arrives', async () => {
    for (const request of Object.values(HOSTILE_REQUESTS)) {
      for (let i = 0; i < 10; i++) await tlsThenReset(request);
    }
    expect(await get()).toBe(200);
  });

  it('stays up when clients send plain HTTP to the TLS port or reset mid-handshake', async () => {
    for (let i = 0; i < 20; i++) {
      await sendThenReset(stack.daemon.api.port, HOSTILE_REQUESTS['connect'] as string, 'on-answer');
      await sendThenReset(
        stack.daemon.api.port,
        '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03',
        'before-answer',
      );
    }
    expect(await get()).toBe(200);
  });
});
