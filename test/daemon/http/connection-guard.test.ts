import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReply, raw, silent } from '../../support/raw-http.ts';
import { eventually, startStack, type Stack } from '../../support/stack.ts';

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
