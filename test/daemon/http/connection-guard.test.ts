import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseReply, raw, silent } from '../../support/raw-http.ts';
import { openSse } from '../../../harness/sse-client.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

const ATTACKER = '127.0.0.2';

describe('the per-address connection cap', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sim: false, daemon: { http: { maxConnectionsPerAddress: 3 } } });
  });
  afterAll(() => stack.close());

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
      daemon: { http: { maxConnections: 3, maxConnectionsPerAddress: 10, trustedProxies: [PROXY] } },
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
