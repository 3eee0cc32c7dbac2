import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseReply, raw, type Silent, silent } from '../../support/raw-http.ts';
import { openSse } from '../../../harness/sse-client.ts';
import { TEST_ROUTES } from '../../support/test-routes.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';
import { suiteStack } from '../../support/suite.ts';

const ATTACKER = '127.0.0.2';

describe('the per-address connection cap', () => {
  const stack = suiteStack({ sim: false, daemon: { http: { maxConnectionsPerAddress: 3 } } });

  it('answers one connection over the cap with 429 rate_limited in the envelope, and serves others', async () => {
    const held = await Promise.all([1, 2, 3].map(() => silent(stack.daemon.api.port, ATTACKER)));
    const over = await silent(stack.daemon.api.port, ATTACKER);
    const reply = parseReply(await over.reply);
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('1');
    const error = (reply.json as { error: { code: string; request_id: string } }).error;
    expect(error.code).toBe('rate_limited');
    expect(error.request_id).toBe(reply.headers['x-request-id']);
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    held[0]!.socket.destroy();
    // The daemon sees the close a moment later; then the freed place serves a request.
    await eventually(async () => {
      const again = await raw(
        stack.daemon.api.port,
        (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        { localAddress: ATTACKER },
      );
      return parseReply(again).status === 200;
    });
    for (const { socket } of held) socket.destroy();
  });

  it('does not cap a trusted proxy, whose address every client behind it shares', async () => {
    const proxied = await startStack({
      sim: false,
      daemon: { http: { maxConnectionsPerAddress: 1, trustedProxies: [ATTACKER] } },
    });
    try {
      const held = await Promise.all([1, 2, 3].map(() => silent(proxied.daemon.api.port, ATTACKER)));
      const reply = await raw(
        proxied.daemon.api.port,
        (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        { localAddress: ATTACKER },
      );
      expect(parseReply(reply).status).toBe(200);
      for (const { socket } of held) socket.destroy();
    } finally {
      await proxied.close();
    }
  });
});

describe('the global connection cap', () => {
  const get = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const PROXY = '127.0.0.3';
  let stack: Stack;
  // A daemon each: what one test leaves open would otherwise count in the next.
  beforeEach(async () => {
    stack = await startStack({
      sim: false,
      daemon: {
        routes: TEST_ROUTES,
        http: { maxConnections: 3, maxConnectionsPerAddress: 10, trustedProxies: [PROXY] },
      },
    });
  });
  afterEach(() => stack.close());

  it('closes the oldest silent connection of the address holding the most to admit another address', async () => {
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await silent(stack.daemon.api.port, ATTACKER));
    const reply = await raw(stack.daemon.api.port, (socket) => socket.write(get));
    expect(parseReply(reply).status).toBe(200);
    expect(await held[0]!.reply).toBe('');
    for (const { socket } of held) socket.destroy();
  });

  it('answers 429 rate_limited in the envelope when it is full and no connection is idle', async () => {
    // Event streams are requests in flight: never evicted.
    const headers = { authorization: `Bearer ${stack.key}` };
    const busy = await Promise.all([1, 2, 3].map(() => openSse(`${stack.baseUrl}/v1/events`, headers)));
    expect(busy.map((client) => client.status)).toEqual([200, 200, 200]);
    const reply = parseReply(
      await raw(stack.daemon.api.port, (socket) => socket.write(get), { localAddress: ATTACKER }),
    );
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('1');
    expect((reply.json as { error: { code: string } }).error.code).toBe('rate_limited');
    for (const client of busy) client.close();
  });

  it('closes a connection still sending its request head to admit another address, never an upload', async () => {
    const port = stack.daemon.api.port;
    const stalled = await silent(port, ATTACKER);
    // Closed without an answer: reset, as the head it sent is discarded unread.
    const evicted = stalled.reply.catch(() => '');
    stalled.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // Their round trips (each waits for its 100 Continue) let the daemon read that head first.
    const uploads = [await uploading(port, ATTACKER, stack.key), await uploading(port, ATTACKER, stack.key)];
    expect(parseReply(await raw(port, (socket) => socket.write(get))).status).toBe(200);
    expect(await evicted).toBe('');
    // Full again, with requests in flight only (their bodies still arriving): nothing to evict.
    uploads.push(await uploading(port, ATTACKER, stack.key));
    expect(parseReply(await raw(port, (socket) => socket.write(get))).status).toBe(429);
    for (const upload of uploads) upload.socket.end('"x"}');
    for (const upload of uploads) {
      const reply = (await upload.reply).replace('HTTP/1.1 100 Continue\r\n\r\n', '');
      expect(parseReply(reply).status).toBe(201);
    }
  });

  it('counts a trusted proxy toward the total, though not toward the per-address cap', async () => {
    const held = await Promise.all([1, 2, 3].map(() => silent(stack.daemon.api.port, PROXY)));
    const over = parseReply(await (await silent(stack.daemon.api.port, PROXY)).reply);
    expect(over.status).toBe(429);
    for (const { socket } of held) socket.destroy();
  });
});

describe('the first-byte timeout', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      sim: false,
      daemon: { http: { firstByteTimeoutMs: 200, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 } },
    });
  });
  afterAll(() => stack.close());

  it('closes a connection that has sent nothing', async () => {
    const { reply } = await silent(stack.daemon.api.port, '127.0.0.1');
    expect(await reply).toBe('');
  });

  it('leaves a connection that has started a request to the header timeout, which answers 408', async () => {
    const reply = await raw(stack.daemon.api.port, (socket) => socket.write('GET /healthz HTTP/1.1\r\n'));
    expect(parseReply(reply).status).toBe(408);
  });
});

/**
 * A POST whose head node:http has parsed (its `100 Continue` says the request was handed on)
 * and whose body has only begun: `{"name":` of `{"name":"x"}`. A request in flight.
 */
async function uploading(port: number, localAddress: string, key: string): Promise<Silent> {
  const upload = await silent(port, localAddress);
  const body = '{"name":"x"}';
  let received = '';
  upload.socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  upload.socket.write(
    `POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await eventually(() => received.includes('100 Continue'));
  upload.socket.write(body.slice(0, 8));
  return upload;
}
