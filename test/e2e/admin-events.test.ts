/**
 * GET /admin/v1/events (docs/admin.md, "Live events") on the admin TCP listener of an in-process
 * daemon, with admin tokens: every event, unredacted, as SSE; resume with Last-Event-ID; caps per
 * admin; and the stream cut, with the 401 envelope as its final message, the moment the admin
 * token that opened it is revoked, or the panel session that opened it signs out or expires,
 * while other streams go on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatHostPort } from '../../daemon/host-port.ts';
import { adminRequest } from '../../harness/admin.ts';
import { openSse, type SseClient } from '../../harness/sse-client.ts';
import { eventually, startStack, type Stack, type StackOptions } from '../../harness/stack.ts';

let stack: Stack | undefined;
const open: SseClient[] = [];

afterEach(async () => {
  for (const client of open.splice(0)) client.close();
  await stack?.close();
  stack = undefined;
});

const JOINED = {
  player: { platform_id: '76561198000000001', social_id: null, name: 'Ada' },
  ip: '203.0.113.9',
};

async function setup(
  eventStreams?: { maxPerActor?: number; maxTotal?: number },
  daemon: StackOptions['daemon'] = {},
  sessions?: { ttlMs: number },
): Promise<Stack> {
  const admin = {
    listen: { host: '127.0.0.1', port: 0 },
    ...(eventStreams ? { eventStreams } : {}),
    ...(sessions ? { sessions } : {}),
  };
  stack = await startStack({ sim: false, daemon: { ...daemon, admin } });
  return stack;
}

const base = (s: Stack) => `http://${formatHostPort(s.daemon.admin.address!)}`;

/** A new admin token the running daemon already accepts. */
async function token(s: Stack, name: string): Promise<{ id: string; token: string }> {
  const created = await adminRequest({
    dataDir: s.data.dir,
    method: 'POST',
    path: '/admin/v1/tokens',
    body: { name },
  });
  expect(created.status).toBe(201);
  const minted = created.json as { id: string; token: string };
  await eventually(
    async () =>
      (await adminRequest({ url: base(s), token: minted.token, path: '/admin/v1/status' })).status === 200,
  );
  return minted;
}

async function stream(
  s: Stack,
  bearer: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<SseClient> {
  const client = await openSse(`${base(s)}/admin/v1/events${query}`, {
    authorization: `Bearer ${bearer}`,
    ...headers,
  });
  open.push(client);
  return client;
}

/** A request to /admin/v1/session, the panel's sign-in and sign-out. */
const session = (s: Stack, init: { method: string; body?: unknown; headers?: Record<string, string> }) =>
  adminRequest({ url: base(s), path: '/admin/v1/session', ...init });

/** Signs in to the panel with `bearer`; the session cookie, as `name=value`. */
async function signIn(s: Stack, bearer: string): Promise<string> {
  const answer = await session(s, { method: 'POST', body: { token: bearer } });
  expect(answer.status).toBe(201);
  return answer.headers['set-cookie']?.[0]?.split(';')[0] ?? '';
}

async function sessionStream(s: Stack, cookie: string): Promise<SseClient> {
  const client = await openSse(`${base(s)}/admin/v1/events`, { cookie });
  open.push(client);
  expect(client.status).toBe(200);
  return client;
}

/** The stream's final message, once it has ended: the 401 envelope. */
async function endedUnauthorized(client: SseClient): Promise<string> {
  const final = await client.next((m) => m.event === 'error', 10_000);
  await client.ended;
  const envelope = JSON.parse(final.data) as { error: { code: string; message: string } };
  expect(envelope.error.code).toBe('unauthorized');
  return envelope.error.message;
}

describe('GET /admin/v1/events', () => {
  it('streams every event with every field, and resumes after Last-Event-ID', async () => {
    const s = await setup();
    const { token: bearer } = await token(s, 'panel');
    const client = await stream(s, bearer);
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toMatch(/^text\/event-stream/);
    const joined = await s.daemon.events.append({ type: 'player.joined', data: JOINED });
    const banned = await s.daemon.events.append({ type: 'player.banned', data: { player: JOINED.player } });
    const message = await client.next((m) => m.event === 'player.joined');
    expect(JSON.parse(message.data)).toMatchObject({ id: joined?.id, data: { ip: '203.0.113.9' } });
    await client.next((m) => m.id === String(banned?.id));
    client.close();
    const resumed = await stream(s, bearer, { 'last-event-id': String(joined?.id) });
    const next = await resumed.next((m) => m.id !== null);
    expect(next.id).toBe(String(banned?.id));
    const typed = await stream(s, bearer, {}, `?after=0&types=player.banned`);
    expect((await typed.next((m) => m.id !== null)).event).toBe('player.banned');
    const stale = await adminRequest({ url: base(s), token: bearer, path: '/admin/v1/events?after=999999' });
    expect(stale.status).toBe(400);
  });

  it("ends the stream with 401 when its admin token is revoked, and leaves another token's open", async () => {
    const s = await setup();
    const [revoked, other] = [await token(s, 'leaving'), await token(s, 'staying')];
    const [client, bystander] = [await stream(s, revoked.token), await stream(s, other.token)];
    const revoke = { dataDir: s.data.dir, method: 'DELETE', path: `/admin/v1/tokens/${revoked.id}` };
    expect((await adminRequest(revoke)).status).toBe(204);
    const final = await client.next((m) => m.event === 'error', 10_000);
    await client.ended;
    const envelope = JSON.parse(final.data) as { error: { code: string; request_id: string } };
    expect(envelope.error.code).toBe('unauthorized');
    expect(envelope.error.request_id).toBe(client.headers['x-request-id']);
    const event = await s.daemon.events.append({ type: 'player.banned', data: { player: JOINED.player } });
    await bystander.next((m) => m.id === String(event?.id));
    expect(bystander.messages.filter((m) => m.event === 'error')).toEqual([]);
  });

  it('refuses a fifth stream of one admin with 429, and takes one again once a stream ends', async () => {
    const s = await setup();
    const { token: bearer } = await token(s, 'greedy');
    const four = await Promise.all([1, 2, 3, 4].map(() => stream(s, bearer)));
    expect(four.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    const fifth = await stream(s, bearer);
    expect(fifth.status).toBe(429);
    expect(JSON.parse(await fifth.text())).toMatchObject({ error: { code: 'rate_limited' } });
    expect(fifth.headers['retry-after']).toBeDefined();
    four[0]?.close();
    await eventually(async () => {
      const again = await stream(s, bearer);
      return again.status === 200;
    });
  });

  it('takes its caps from the options ([admin] events_max_per_admin, events_max_total)', async () => {
    const s = await setup({ maxPerActor: 1, maxTotal: 2 });
    const [one, two, three] = [await token(s, 'a'), await token(s, 'b'), await token(s, 'c')];
    expect((await stream(s, one.token)).status).toBe(200);
    expect((await stream(s, one.token)).status).toBe(429);
    expect((await stream(s, two.token)).status).toBe(200);
    const full = await stream(s, three.token);
    expect(full.status).toBe(429);
    expect(JSON.parse(await full.text())).toMatchObject({
      error: { message: expect.stringContaining('all admins 2') },
    });
  });

  it('cuts a reader that falls behind with a final stream.closed, as the /v1 stream does', async () => {
    const s = await setup(undefined, { stream: { maxBufferedBytes: 64 * 1024 } });
    const { token: bearer } = await token(s, 'slow');
    const client = await stream(s, bearer);
    client.pause();
    const filler = 'x'.repeat(4_096);
    // 6 MB of events for a reader that takes none: past what the sockets hold, and the 64 KiB it may lag.
    const appended = Array.from({ length: 1_500 }, (_, n) =>
      s.daemon.events.append({ type: 'command.executed', data: { command: `#Say ${n}`, output: filler } }),
    );
    await Promise.all(appended);
    client.resume();
    const final = await client.next((m) => m.event === 'stream.closed', 10_000);
    expect(JSON.parse(final.data)).toMatchObject({ reason: 'slow_reader' });
    await client.ended;
  });

  it("ends a panel session's stream with 401 when the session signs out, and leaves another session's open", async () => {
    const s = await setup();
    const { token: bearer } = await token(s, 'panel');
    const [leaving, staying] = [await signIn(s, bearer), await signIn(s, bearer)];
    const [client, bystander] = [await sessionStream(s, leaving), await sessionStream(s, staying)];
    const signOut = await session(s, { method: 'DELETE', headers: { cookie: leaving } });
    expect(signOut.status).toBe(204);
    expect(await endedUnauthorized(client)).toContain('session');
    const event = await s.daemon.events.append({ type: 'player.banned', data: { player: JOINED.player } });
    await bystander.next((m) => m.id === String(event?.id));
    expect(bystander.messages.filter((m) => m.event === 'error')).toEqual([]);
  });

  it("ends a panel session's stream with 401 when the session expires, with no request to notice it", async () => {
    const s = await setup(undefined, {}, { ttlMs: 1_500 });
    const { token: bearer } = await token(s, 'panel');
    const client = await sessionStream(s, await signIn(s, bearer));
    const tokenStream = await stream(s, bearer);
    expect(await endedUnauthorized(client)).toContain('expired');
    const event = await s.daemon.events.append({ type: 'player.banned', data: { player: JOINED.player } });
    await tokenStream.next((m) => m.id === String(event?.id));
  });
});
