/**
 * Issue 24, item 4 (streams): revocation does not stop at the door. `modgate serve` runs as its
 * own process; a bot holds `GET /v1/events` open while the operator revokes its key, lets it
 * expire, narrows its allowlist, switches the API off or the plan off (by the CLI or by writing
 * the data dir, as an operator would). Each time the stream ends with a final `event: error`
 * message carrying the envelope a new request would get, and closes; a stream the change does
 * not concern stays open. Waits for conditions, never asserts on time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { keysFile } from '../../daemon/store/keys-file.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { logLines, startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { openSse, type SseClient } from '../../harness/sse-client.ts';
import { eventually } from '../../harness/stack.ts';

interface Envelope {
  error: { code: string; message: string; request_id: string };
}

/** Longer than the 1 s bound, for a loaded machine; the test asserts the end, not its time. */
const WITHIN = 10_000;

describe('an open event stream whose access ends', () => {
  let data: TestDataDir;
  let serve: ModgateProcess;
  let apiPort: number;
  let metricsPort: number;
  const open: SseClient[] = [];

  const url = (path: string) => `http://127.0.0.1:${apiPort}${path}`;
  /** A new key the running daemon already accepts. */
  const loadedKey = async (...flags: string[]) => {
    const created = await data.createKey('--name', 'bot', ...flags);
    const headers = { authorization: `Bearer ${created.key}` };
    await eventually(async () => (await fetch(url('/v1/events?limit=1'), { headers })).status === 200);
    return created;
  };
  const stream = async (key: string) => {
    const client = await openSse(url('/v1/events'), { authorization: `Bearer ${key}` });
    expect(client.status).toBe(200);
    open.push(client);
    return client;
  };
  /** The final message: an `error` event with the envelope, after which the stream closes. */
  const finalError = async (client: SseClient): Promise<Envelope> => {
    const message = await client.next((m) => m.event === 'error', WITHIN);
    await client.ended;
    const envelope = JSON.parse(message.data) as Envelope;
    expect(Object.keys(envelope)).toEqual(['error']);
    expect(envelope.error.request_id).toBe(client.headers['x-request-id']);
    expect(client.messages.at(-1)).toBe(message);
    return envelope;
  };
  const cli = async (...argv: string[]) => {
    const result = await data.cli(...argv, '--data-dir', data.dir);
    expect(result.code, result.stderr).toBe(0);
  };

  beforeAll(async () => {
    data = await makeDataDir();
    metricsPort = await freePort();
    ({ serve, apiPort } = await startServe(data.dir, {
      extra: ['--metrics-listen', `127.0.0.1:${metricsPort}`],
    }));
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    if (serve) await stop(serve);
    await data?.remove();
  });

  it('ends with 401 unauthorized when its key is revoked, and leaves other keys’ streams open', async () => {
    const revoked = await loadedKey();
    const other = await loadedKey();
    const [client, bystander] = [await stream(revoked.key), await stream(other.key)];
    await cli('keys', 'revoke', revoked.id);
    const envelope = await finalError(client);
    expect(envelope.error.code).toBe('unauthorized');
    expect(envelope.error.message).toMatch(/revoked/);
    expect(bystander.messages.filter((m) => m.event === 'error')).toEqual([]);
    let bystanderEnded = false;
    void bystander.ended.then(() => (bystanderEnded = true));
    // A round trip later the other key's stream has still not ended.
    await fetch(url('/healthz'));
    expect(bystanderEnded).toBe(false);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^modgate_event_stream_cuts_total\{reason="access_revoked"\} 1$/m);
    const logged = logLines(serve).filter((line) => line['msg'] === 'stream revoked');
    expect(logged).toEqual([
      expect.objectContaining({
        key_id: revoked.id,
        error_code: 'unauthorized',
        request_id: envelope.error.request_id,
      }),
    ]);
  });

  it('ends with 401 unauthorized when its key expires, with no file changing', async () => {
    const expiring = await loadedKey();
    const expiresAt = new Date(Date.now() + 3_000);
    const dataDir = await DataDir.open(data.dir);
    await dataDir.update(keysFile, (keys) =>
      keys.map((key) => (key.id === expiring.id ? { ...key, expiresAt } : key)),
    );
    await cli('reload'); // a hand edit counts from the next reload
    const client = await stream(expiring.key);
    const envelope = await finalError(client);
    expect(envelope.error.code).toBe('unauthorized');
    expect(envelope.error.message).toMatch(/expired/);
  });

  it('ends with 403 ip_not_allowed when its allowlist no longer holds the client address', async () => {
    const narrowed = await loadedKey();
    const client = await stream(narrowed.key);
    const dataDir = await DataDir.open(data.dir);
    await dataDir.update(keysFile, (keys) =>
      keys.map((key) => (key.id === narrowed.id ? { ...key, allowIps: ['203.0.113.7/32'] } : key)),
    );
    await cli('reload');
    expect((await finalError(client)).error.code).toBe('ip_not_allowed');
  });

  it('ends with 404 not_found when the API is disabled', async () => {
    const { key } = await loadedKey();
    const client = await stream(key);
    await cli('api', 'disable');
    try {
      expect((await finalError(client)).error.code).toBe('not_found');
    } finally {
      await cli('api', 'enable');
      await eventually(async () => (await fetch(url('/v1/events?limit=1'), { headers: auth(key) })).ok);
    }
  });

  it('ends with 403 premium_required when the plan is switched off', async () => {
    const { key } = await loadedKey();
    const client = await stream(key);
    await cli('plan', 'set', '--premium', 'off');
    try {
      expect((await finalError(client)).error.code).toBe('premium_required');
    } finally {
      await cli('plan', 'set', '--premium', 'on', '--features', 'shop');
      await eventually(async () => (await fetch(url('/v1/events?limit=1'), { headers: auth(key) })).ok);
    }
  });

  it('ends with 403 premium_required when the plan reaches its end date, with no file changing', async () => {
    const { key } = await loadedKey();
    const until = new Date(Date.now() + 3_000).toISOString();
    await cli('plan', 'set', '--premium', 'on', '--features', 'shop', '--until', until);
    const client = await stream(key);
    try {
      expect((await finalError(client)).error.code).toBe('premium_required');
    } finally {
      await cli('plan', 'set', '--premium', 'on', '--features', 'shop');
      await eventually(async () => (await fetch(url('/v1/events?limit=1'), { headers: auth(key) })).ok);
    }
  });
});

function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
