import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../daemon/daemon.ts';
import { JOURNAL_FILE } from '../../../daemon/idempotency/journal.ts';
import { silentLogger } from '../../../daemon/log/log.ts';
import type { Player } from '../../../mod-sim/world/index.ts';
import { suiteStack } from '../../support/suite.ts';

function errorOf(json: unknown) {
  return (json as { error: { code: string } }).error;
}

describe('Idempotency-Key', () => {
  const stack = suiteStack({ daemon: { pipeline: { opDeadlines: { 'players.ban': 300 } } } });
  let clean: Player[];
  let next = 0;
  const target = () => clean[next++] as Player;
  const ban = (ref: string, body: unknown, key?: string, raw?: string) =>
    stack.call(`/v1/players/${ref}/ban`, {
      method: 'POST',
      body: raw ?? JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    });
  const count = () => stack.sim!.opCounts.get('players.ban') ?? 0;

  beforeAll(async () => {
    clean = stack.sim!.world.players.list.values().filter((p) => !p.moderation.ban.banned);
  });

  it('replays the original status and body for the same key and body, without reaching the game again', async () => {
    const ref = target().platform_id;
    const first = await ban(ref, { duration: 5, reason: 'a' }, 'k-replay');
    const before = count();
    const second = await ban(ref, { duration: 5, reason: 'a' }, 'k-replay');
    expect(second.status).toBe(first.status);
    expect(String(second.body)).toBe(String(first.body));
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(count()).toBe(before);
  });

  it('treats a body with its keys in another order as the same request', async () => {
    const ref = target().platform_id;
    await ban(ref, undefined, 'k-order', '{"duration":5,"reason":"b"}');
    const again = await ban(ref, undefined, 'k-order', '{"reason":"b","duration":5}');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 409 idempotency_conflict for the same key with another body or another player', async () => {
    const ref = target().platform_id;
    await ban(ref, { duration: 5 }, 'k-conflict');
    expect(errorOf((await ban(ref, { duration: 6 }, 'k-conflict')).json).code).toBe('idempotency_conflict');
    expect((await ban(target().platform_id, { duration: 5 }, 'k-conflict')).status).toBe(409);
  });

  it('keeps keys apart per API key', async () => {
    const ref = target().platform_id;
    await ban(ref, { duration: 5 }, 'k-per-key');
    const { key } = await stack.data.createKey('--name', 'other-bot');
    const other = await stack.call(`/v1/players/${ref}/ban`, {
      method: 'POST',
      body: JSON.stringify({ duration: 7 }),
      headers: {
        'content-type': 'application/json',
        'idempotency-key': 'k-per-key',
        authorization: `Bearer ${key}`,
      },
    });
    expect(other.status).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not store a request refused before the handler', async () => {
    const ref = target().platform_id;
    expect((await ban(ref, {}, 'k-invalid')).status).toBe(400);
    const valid = await ban(ref, { duration: 5 }, 'k-invalid');
    expect(valid.status).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not store a 504, and the retry reuses the op id so the game applies the write once', async () => {
    const ref = target().platform_id;
    stack.sim!.faults.add({ op: 'players.ban', kind: 'hang', afterApply: true, times: 1 });
    const appliedBefore = stack.sim!.world.appliedOps.size;
    expect((await ban(ref, { duration: 5, reason: 'retry' }, 'k-retry')).status).toBe(504);
    expect(stack.sim!.world.appliedOps.size).toBe(appliedBefore + 1);
    const retry = await ban(ref, { duration: 5, reason: 'retry' }, 'k-retry');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(stack.sim!.world.appliedOps.size).toBe(appliedBefore + 1);
  });

  it('lets concurrent duplicates wait for the first and replay its result', async () => {
    const ref = target().platform_id;
    const before = count();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => ban(ref, { duration: 9 }, 'k-race')),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(count()).toBe(before + 1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
  });

  it.each([
    ['a key longer than 255 characters', 'x'.repeat(256)],
    ['a key with a space', 'a b'],
    ['an empty key', ''],
  ])('refuses %s with 400', async (_what, key) => {
    const res = await stack.call(`/v1/players/${target().platform_id}/ban`, {
      method: 'POST',
      body: JSON.stringify({ duration: 5 }),
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(res.status).toBe(400);
  });

  it('keeps the journal private to the daemon user', async () => {
    expect((await stat(join(stack.data.dir, JOURNAL_FILE))).mode & 0o777).toBe(0o600);
  });
});

describe('Idempotency-Key across a daemon restart', () => {
  const stack = suiteStack();

  it('replays a write made before the restart', async () => {
    const ref = stack.sim!.world.players.list.itemAt(5).platform_id;
    const request = {
      method: 'POST',
      body: JSON.stringify({ permanent: true, reason: 'before restart' }),
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-restart' },
    };
    const first = await stack.call(`/v1/players/${ref}/ban`, request);
    expect(first.status).toBe(200);
    await stack.daemon.close();
    const restarted = await startDaemon({
      dataDir: stack.data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: 0 },
      log: silentLogger,
    });
    stack.daemon = restarted;
    const replayed = await stack.call(`/v1/players/${ref}/ban`, request);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(String(replayed.body)).toBe(String(first.body));
  });
});

describe('a replayed error', () => {
  const stack = suiteStack();

  it("carries the retry's own request id in error.request_id and X-Request-Id alike", async () => {
    const ref = stack.sim!.world.players.list.itemAt(3).platform_id;
    const debit = () =>
      fetch(`${stack.baseUrl}/v1/players/${ref}/coins`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${stack.key}`,
          'content-type': 'application/json',
          'idempotency-key': 'k-stored-error',
        },
        body: JSON.stringify({ amount: -1_000_000_000, reason: 'more than the balance' }),
      });
    const first = await debit();
    const second = await debit();
    expect([first.status, second.status]).toEqual([409, 409]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    type Envelope = { error: Record<string, unknown> };
    const [a, b] = [(await first.json()) as Envelope, (await second.json()) as Envelope];
    expect(a.error['request_id']).toBe(first.headers.get('x-request-id'));
    expect(b.error['request_id']).toBe(second.headers.get('x-request-id'));
    expect(b.error['request_id']).not.toBe(a.error['request_id']);
    expect({ ...b.error, request_id: null }).toEqual({ ...a.error, request_id: null });
  });
});
