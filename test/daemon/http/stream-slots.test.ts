import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../../../harness/sse-client.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

interface Envelope {
  error: { code: string; request_id: string };
}

describe('the caps on open event streams', () => {
  let stack: Stack;
  const open: SseClient[] = [];
  const start = async (http: { trustedProxies?: string[] } = {}) => {
    stack = await startStack({
      sim: false,
      daemon: { http, pipeline: { streamLimits: { maxPerKey: 2, maxPerAddress: 3 } } },
    });
  };
  const stream = async (key: string, headers: Record<string, string> = {}) => {
    const client = await openSse(`${stack.baseUrl}/v1/events`, {
      authorization: `Bearer ${key}`,
      ...headers,
    });
    open.push(client);
    return client;
  };
  const key = async () => (await stack.data.createKey('--name', 'bot')).key;
  /** Keys are created through the CLI: wait until the daemon has loaded them. */
  const loaded = async (...keys: string[]) => {
    for (const text of keys) {
      await eventually(
        async () =>
          (await stack.call('/v1/events', { headers: { authorization: `Bearer ${text}` } })).status === 200,
      );
    }
  };
  const expectRefused = async (client: SseClient) => {
    expect(client.status).toBe(429);
    expect(Number(client.headers['retry-after'])).toBeGreaterThan(0);
    const envelope = JSON.parse(await client.text()) as Envelope;
    expect(envelope.error.code).toBe('rate_limited');
    expect(envelope.error.request_id).toBe(client.headers['x-request-id']);
  };
  afterEach(async () => {
    for (const client of open.splice(0)) client.close();
    await stack.close();
  });

  it('answers a key’s stream over the per-key cap 429 rate_limited, and frees the slot when one ends', async () => {
    await start();
    const held = [await stream(stack.key), await stream(stack.key)];
    expect(held.map((client) => client.status)).toEqual([200, 200]);
    await expectRefused(await stream(stack.key));
    held[0]!.close();
    await eventually(async () => {
      const again = await stream(stack.key);
      return again.status === 200;
    });
  });

  it('answers a stream over the per-address cap 429, whatever key it uses', async () => {
    await start();
    const [a, b] = [await key(), await key()];
    await loaded(a, b);
    const held = [await stream(stack.key), await stream(a), await stream(b)];
    expect(held.map((client) => client.status)).toEqual([200, 200, 200]);
    await expectRefused(await stream(b));
  });

  it('gives the address’s slot back when a stream is ended by its key’s revocation', async () => {
    await start();
    const revoked = await stack.data.createKey('--name', 'revoked');
    const kept = await key();
    await loaded(revoked.key, kept);
    const held = [await stream(stack.key), await stream(revoked.key), await stream(kept)];
    expect(held.map((client) => client.status)).toEqual([200, 200, 200]);
    await expectRefused(await stream(kept));
    await stack.data.cli('keys', 'revoke', revoked.id, '--data-dir', stack.data.dir);
    await held[1]!.ended;
    await eventually(async () => (await stream(kept)).status === 200);
  });

  it('caps a key behind a trusted proxy, where every client shares the proxy’s connection cap', async () => {
    await start({ trustedProxies: ['127.0.0.1'] });
    const from = (n: number) => ({ 'x-forwarded-for': `198.51.100.${n}` });
    const held = [await stream(stack.key, from(1)), await stream(stack.key, from(2))];
    expect(held.map((client) => client.status)).toEqual([200, 200]);
    await expectRefused(await stream(stack.key, from(3)));
  });

  it('counts the forwarded client address behind a trusted proxy, not the proxy’s', async () => {
    await start({ trustedProxies: ['127.0.0.1'] });
    const [a, b] = [await key(), await key()];
    await loaded(a, b);
    const client = { 'x-forwarded-for': '198.51.100.9' };
    for (const text of [stack.key, a, b]) expect((await stream(text, client)).status).toBe(200);
    await expectRefused(await stream(a, client));
    // Another client behind the same proxy is not refused for the first one's streams.
    expect((await stream(b, { 'x-forwarded-for': '198.51.100.10' })).status).toBe(200);
  });
});
