/**
 * Webhooks end to end: the real daemon, the real simulator, receivers on loopback sockets that
 * verify every signature with the `standardwebhooks` package, and the endpoints registered the
 * way an operator or a bot does it (the CLI, /v1/webhooks over HTTP).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonOptions } from '../../daemon/daemon.ts';
import type { RetryPolicy } from '../../daemon/events/webhooks/retry-policy.ts';
import type { Logger } from '../../daemon/log/log.ts';
import type { Player } from '../../mod-sim/world/index.ts';
import { discordViolations } from '../support/discord-shape.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { accepts, startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { doctor, freePort } from '../cli/doctor-support.ts';

const FAST: Partial<RetryPolicy> = {
  baseDelayMs: 10,
  maxDelayMs: 50,
  retryWindowMs: 60_000,
  timeoutMs: 2_000,
};

let stack: Stack | undefined;
let receivers: Receiver[] = [];
let logged: { level: string; msg: string; fields: Record<string, unknown> }[] = [];

const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (msg, fields = {}) => logged.push({ level: 'warn', msg, fields }),
  error: (msg, fields = {}) => logged.push({ level: 'error', msg, fields }),
};

afterEach(async () => {
  await stack?.close();
  stack = undefined;
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  logged = [];
});

/**
 * A key's endpoint may reach public addresses only, and these tests may reach loopback only: the
 * in-process seam lets keys reach the loopback receivers here (docs/events.md; the address rule
 * itself is tested in webhooks-addresses.test.ts).
 */
const KEYS_REACH_LOOPBACK: DaemonOptions['webhookNetwork'] = { keyNetworksForTests: ['127.0.0.0/8'] };

async function setup(
  policy: Partial<RetryPolicy> = FAST,
  webhookNetwork?: DaemonOptions['webhookNetwork'],
): Promise<Stack> {
  stack = await startStack({
    daemon: { webhooks: policy, log: logger, ...(webhookNetwork ? { webhookNetwork } : {}) },
  });
  return stack;
}

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** A /v1 call over the daemon's real HTTP listener. */
async function api(s: Stack, method: string, path: string, body?: unknown, key = s.key) {
  const response = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: (text === '' ? null : JSON.parse(text)) as Record<string, unknown>,
  };
}

function unbanned(s: Stack): Player[] {
  return s
    .sim!.world.players.list.values()
    .filter((p) => !p.moderation.ban.banned && !p.moderation.mute.muted);
}

const ban = (s: Stack, player: Player) =>
  api(s, 'POST', `/v1/players/${player.platform_id}/ban`, {
    duration: 2,
    duration_unit: 'days',
    reason: 'griefing',
  });

const bansOf = (player: Player) => (r: { json: unknown }) => {
  const event = r.json as { type?: string; data?: { player?: { platform_id?: string } } } | null;
  return event?.type === 'player.banned' && event.data?.player?.platform_id === player.platform_id;
};

async function addWithCli(s: Stack, ...flags: string[]): Promise<{ id: string; secret: string }> {
  const result = await s.data.cli('webhooks', 'add', '--data-dir', s.data.dir, '--json', ...flags);
  if (result.code !== 0) throw new Error(result.stderr);
  const created = JSON.parse(result.stdout) as { id: string; secret: string };
  await eventually(() => s.daemon.webhooks.get(created.id) !== undefined);
  return created;
}

describe('webhooks through the API', () => {
  it('delivers a ban made through the API, signed, to an endpoint registered through the API', async () => {
    const s = await setup(FAST, KEYS_REACH_LOOPBACK);
    const hook = await receiver();
    const created = await api(s, 'POST', '/v1/webhooks', { url: hook.url, events: ['player.banned'] });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      url: hook.url,
      events: ['player.banned'],
      format: 'standard',
      status: 'active',
    });
    const id = created.json['id'] as string;
    hook.secret = created.json['secret'] as string;
    const player = unbanned(s)[0] as Player;
    expect((await ban(s, player)).status).toBe(200);
    await eventually(() => hook.processed.some(bansOf(player)));
    const delivery = hook.requests.find(bansOf(player));
    expect(delivery?.verified).toBe(true);
    expect(delivery?.json).toMatchObject({
      type: 'player.banned',
      data: { player: { platform_id: player.platform_id }, ban: { banned: true, reason: 'griefing' } },
    });
    expect(hook.requests.every((r) => (r.json as { type: string }).type === 'player.banned')).toBe(true);

    const got = await api(s, 'GET', `/v1/webhooks/${id}`);
    expect(got.json).not.toHaveProperty('secret');
    expect(got.json['created_by']).toBe(s.daemon.webhooks.get(id)?.createdBy);
    await eventually(
      async () =>
        ((await api(s, 'GET', `/v1/webhooks/${id}/deliveries`)).json['data'] as unknown[]).length > 0,
    );
    const deliveries = await api(s, 'GET', `/v1/webhooks/${id}/deliveries?limit=5`);
    expect((deliveries.json['data'] as Record<string, unknown>[])[0]).toMatchObject({
      outcome: 'delivered',
      status: 204,
      message_id: delivery?.messageId,
      attempt: 1,
    });
    const listed = await api(s, 'GET', '/v1/webhooks');
    expect(listed.json).toMatchObject({ has_more: false, next_cursor: null, data: [{ id }] });
    expect((await api(s, 'DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
    expect((await api(s, 'GET', `/v1/webhooks/${id}`)).json).toMatchObject({ error: { code: 'not_found' } });
    expect((await api(s, 'DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it('refuses a plain-http public URL, an unknown event type, and a key without webhooks:manage', async () => {
    const s = await setup();
    const http = await api(s, 'POST', '/v1/webhooks', { url: 'http://bot.example/hook', events: ['*'] });
    expect(http.status).toBe(400);
    expect(http.json).toMatchObject({ error: { code: 'validation_error' } });
    expect(JSON.stringify(http.json)).toContain('plain http is allowed only to a loopback address');
    const type = await api(s, 'POST', '/v1/webhooks', {
      url: 'https://bot.example/',
      events: ['player.exploded'],
    });
    expect(type.status).toBe(400);
    const { key } = await s.data.createKey('--name', 'reader', '--scopes', 'players:read');
    await eventually(async () => (await api(s, 'GET', '/v1/webhooks', undefined, key)).status !== 401);
    const denied = await api(s, 'GET', '/v1/webhooks', undefined, key);
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({
      error: { code: 'insufficient_scope', details: { missing_scope: 'webhooks:manage' } },
    });
    expect(s.daemon.webhooks.list()).toEqual([]);
  });

  it('leaves out fields guarded by players:read_sensitive unless the registering key had it', async () => {
    const s = await setup(FAST, KEYS_REACH_LOOPBACK);
    const [plain, operator] = [await receiver(), await receiver()];
    const { key } = await s.data.createKey('--name', 'hooks', '--scopes', 'webhooks:manage');
    await eventually(async () => (await api(s, 'GET', '/v1/webhooks', undefined, key)).status === 200);
    const created = await api(s, 'POST', '/v1/webhooks', { url: plain.url, events: ['player.joined'] }, key);
    expect(created.json).toMatchObject({ sensitive_fields: false, created_by: expect.any(String) });
    const { id } = await addWithCli(s, '--url', operator.url, '--events', 'player.joined');
    expect(s.daemon.webhooks.get(id)?.sensitiveFields).toBe(true);
    const player = s.sim!.world.players.list.values().find((p) => p.online) as Player;
    const live = player.live;
    s.sim!.world.players.setOnline(player, null);
    s.sim!.world.players.setOnline(player, live);
    const joined = (r: Receiver) =>
      r.requests.find((q) => (q.json as { type: string }).type === 'player.joined');
    await eventually(() => joined(plain) !== undefined && joined(operator) !== undefined);
    expect((joined(operator)?.json as { data: Record<string, unknown> }).data['ip']).toEqual(
      expect.any(String),
    );
    expect((joined(plain)?.json as { data: Record<string, unknown> }).data).not.toHaveProperty('ip');
    expect((joined(plain)?.json as { data: Record<string, unknown> }).data).toMatchObject({
      player: { platform_id: player.platform_id },
    });
  });

  it("rotates the secret of a key's own endpoint: both secrets sign during the overlap, then the new one alone", async () => {
    const s = await setup(FAST, KEYS_REACH_LOOPBACK);
    const [overlapping, immediate] = [await receiver(), await receiver()];
    const create = async (hook: Receiver) =>
      (await api(s, 'POST', '/v1/webhooks', { url: hook.url, events: ['player.banned'] })).json;
    const first = await create(overlapping);
    const second = await create(immediate);
    const rotate = (id: unknown, body: unknown) =>
      api(s, 'POST', `/v1/webhooks/${String(id)}/rotate-secret`, body);

    const rotated = await rotate(first['id'], { overlap: 3_600 });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ id: first['id'], previous_secret_until: expect.any(String) });
    expect(rotated.json['secret']).not.toBe(first['secret']);
    const cut = await rotate(second['id'], { overlap: 0 });
    expect(cut.json['previous_secret_until']).toBeNull();
    expect((await api(s, 'GET', `/v1/webhooks/${String(first['id'])}`)).json).not.toHaveProperty('secret');

    const player = unbanned(s)[0] as Player;
    expect((await ban(s, player)).status).toBe(200);
    await eventually(
      () => overlapping.requests.some(bansOf(player)) && immediate.requests.some(bansOf(player)),
    );
    const during = overlapping.requests.find(bansOf(player));
    expect(accepts(first['secret'], during)).toBe(true);
    expect(accepts(rotated.json['secret'], during)).toBe(true);
    const after = immediate.requests.find(bansOf(player));
    expect(accepts(second['secret'], after)).toBe(false);
    expect(accepts(cut.json['secret'], after)).toBe(true);
  });

  it("refuses to rotate another key's endpoint (404), an overlap past the maximum, and a key without webhooks:manage", async () => {
    const s = await setup(FAST, KEYS_REACH_LOOPBACK);
    const hook = await receiver();
    const { key: other } = await s.data.createKey('--name', 'other', '--scopes', 'webhooks:manage');
    const { key: reader } = await s.data.createKey('--name', 'reader', '--scopes', 'players:read');
    await eventually(async () => (await api(s, 'GET', '/v1/webhooks', undefined, other)).status === 200);
    await eventually(async () => (await api(s, 'GET', '/v1/webhooks', undefined, reader)).status === 403);
    const id = (await api(s, 'POST', '/v1/webhooks', { url: hook.url, events: ['*'] })).json['id'] as string;
    const before = s.daemon.webhooks.get(id)?.secret;
    const path = `/v1/webhooks/${id}/rotate-secret`;
    const foreign = await api(s, 'POST', path, {}, other);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ error: { code: 'not_found' } });
    const long = await api(s, 'POST', path, { overlap: 7 * 86_400 + 1 });
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ error: { code: 'validation_error' } });
    expect((await api(s, 'POST', path, {}, reader)).status).toBe(403);
    expect(s.daemon.webhooks.get(id)?.secret).toBe(before);
  });

  it('describes the six routes in /openapi.json', async () => {
    const s = await setup();
    const doc = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/v1/webhooks'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/webhooks/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/v1/webhooks/{id}/deliveries'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.paths['/v1/webhooks/{id}/rotate-secret'] ?? {})).toEqual(['post']);
  });
});

describe('webhook delivery across failures and restarts', () => {
  it('delivers exactly once to a deduplicating receiver when the daemon restarts in the middle of a retry', async () => {
    const s = await setup({ ...FAST, baseDelayMs: 20 });
    // The receiver acts on a webhook-id once, whatever happens to its answer.
    const acted = new Set<string>();
    let actions = 0;
    let phase: 'failing' | 'answer lost' | 'healthy' = 'failing';
    const hook = await receiver((request) => {
      if (!request.verified) return { status: 401 };
      if (phase === 'failing' && request.index >= 2) phase = 'answer lost';
      if (phase === 'failing') return { status: 500 };
      if (!acted.has(request.messageId)) {
        acted.add(request.messageId);
        actions += 1;
      }
      return phase === 'answer lost' ? 'hang' : { status: 200 };
    });
    const { id, secret } = await addWithCli(s, '--url', hook.url, '--events', 'player.banned');
    hook.secret = secret;
    const player = unbanned(s)[0] as Player;
    await ban(s, player);
    await eventually(() => phase === 'answer lost' && hook.requests.length === 3);
    const before = s.daemon.webhooks.outbox(id).run?.attempts;
    expect(before).toBe(2);

    const { api: apiAddress, modLink } = s.daemon;
    await s.daemon.close();
    phase = 'healthy';
    s.daemon = await startDaemon({
      dataDir: s.data.dir,
      listen: apiAddress,
      modListen: modLink,
      log: logger,
      webhooks: FAST,
    });
    await eventually(() => s.daemon.webhooks.outbox(id).run === null && hook.requests.length >= 4);
    const ids = new Set(hook.requests.map((r) => r.messageId));
    expect(ids.size).toBe(1);
    expect(hook.requests.every((r) => r.verified)).toBe(true);
    // Sent again after the restart (the daemon never saw the answer), acted on once.
    expect(hook.requests.slice(2).length).toBeGreaterThanOrEqual(2);
    expect(actions).toBe(1);
    const last = s.daemon.webhooks.outbox(id).recent.at(-1);
    expect(last).toMatchObject({ outcome: 'delivered', attempt: 3, status: 200 });
  });

  it('retries a failing receiver, then disables the endpoint and says so in the log, list and doctor', async () => {
    // Three attempts take milliseconds: a one-second window leaves a loaded machine ample room.
    const s = await setup({ baseDelayMs: 10, maxDelayMs: 30, retryWindowMs: 1_000, timeoutMs: 2_000 });
    const hook = await receiver(() => ({ status: 500 }));
    const { id } = await addWithCli(s, '--url', hook.url, '--events', 'player.banned');
    await ban(s, unbanned(s)[0] as Player);
    // Registered by the operator: no key sees it through the API.
    await eventually(() => s.daemon.webhooks.get(id)?.disabledAt != null);
    expect(hook.requests.length).toBeGreaterThan(2);
    expect(new Set(hook.requests.map((r) => r.messageId)).size).toBe(1);
    const listed = JSON.parse(
      (await s.data.cli('webhooks', 'list', '--data-dir', s.data.dir, '--json')).stdout,
    ) as { webhooks: Record<string, unknown>[] };
    expect(listed.webhooks[0]).toMatchObject({
      id,
      status: 'disabled',
      disabled_reason: expect.stringMatching(/^one message failed \d+ times over/),
    });
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'webhook endpoint disabled',
        fields: expect.objectContaining({ webhook_id: id }),
      }),
    );
    const report = await doctor(s.data.dir, { api: await freePort(), mod: await freePort() });
    expect(report.line('webhooks')).toMatch(/^warn +webhooks +wh_\w+ .* is disabled since /);
    const deliveries = await s.data.cli('webhooks', 'deliveries', id, '--data-dir', s.data.dir);
    expect(deliveries.stdout).toMatch(/failed +500 +[\d.]+ ms +http_status/);
  });
});

describe('Discord webhooks', () => {
  it('posts bans and mutes as embeds Discord accepts and waits out a 429 retry_after', async () => {
    const s = await setup({ ...FAST, baseDelayMs: 10_000, maxDelayMs: 60_000 });
    const hook = await receiver((request) =>
      request.index === 0
        ? {
            status: 429,
            headers: { 'content-type': 'application/json' },
            body: '{"message":"You are being rate limited.","retry_after":0.2,"global":false}',
          }
        : { status: discordViolations(request.json).length === 0 ? 204 : 400 },
    );
    const { id } = await addWithCli(
      s,
      '--url',
      hook.url,
      '--format',
      'discord',
      '--events',
      'player.banned,player.muted',
    );
    const [first, second] = unbanned(s) as [Player, Player];
    await ban(s, first);
    await api(s, 'POST', `/v1/players/${second.platform_id}/mute`, {
      duration: 90,
      duration_unit: 'minutes',
      reason: 'spam',
    });
    const titles = () =>
      hook.requests
        .slice(1)
        .flatMap((r) => (r.json as { embeds: { title: string }[] }).embeds.map((e) => e.title));
    // The receiver has the last request before the worker has its answer: wait for both.
    await eventually(
      () =>
        titles().includes('Player banned') &&
        titles().includes('Player muted') &&
        s.daemon.webhooks.outbox(id).recent.length === hook.requests.length,
    );
    for (const request of hook.requests) expect(discordViolations(request.json)).toEqual([]);
    const attempts = s.daemon.webhooks.outbox(id).recent;
    expect(attempts[0]).toMatchObject({ outcome: 'failed', status: 429, retry_in_ms: 200 });
    expect(attempts[1]).toMatchObject({ outcome: 'delivered', status: 204 });
    const banEmbed = hook.requests
      .flatMap(
        (r) => (r.json as { embeds: { title: string; fields: { name: string; value: string }[] }[] }).embeds,
      )
      .find((e) => e.title === 'Player banned');
    expect(banEmbed?.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Reason', value: 'griefing' })]),
    );
    expect(banEmbed?.fields.find((f) => f.name === 'Player')?.value).toContain(first.platform_id);
  });
});
