/**
 * Webhooks are not an SSRF cannon: what a `webhooks:manage` key can aim them at, what it reads
 * back, whose endpoints it sees, and what happens to them when its key dies. Real `modgate serve`
 * for the registration refusals; the in-process daemon with an injected resolver for names that
 * change their answer after registration. Only loopback is ever connected to: every refusal
 * under test happens before any connect.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonOptions } from '../../daemon/daemon.ts';
import type { ResolvedAddress } from '../../daemon/events/webhooks/address-policy.ts';
import { newEndpoint, updateEndpoints } from '../../daemon/events/webhooks/endpoint-file.ts';
import type { RetryPolicy } from '../../daemon/events/webhooks/retry-policy.ts';
import type { Logger } from '../../daemon/log/log.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { keysFile } from '../../daemon/store/keys-file.ts';
import type { Player } from '../../mod-sim/world/index.ts';
import { FAST_POLICY } from '../daemon/events/webhooks/service-support.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { http } from '../support/http.ts';
import { freePort } from '../../harness/ports.ts';
import { adminRequest } from '../../harness/admin.ts';
import { startServe, stop, type ModgateProcess } from '../../harness/processes.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

let stack: Stack | undefined;
let serve: ModgateProcess | undefined;
let data: TestDataDir | undefined;
let receivers: Receiver[] = [];
let logged: { level: string; msg: string; fields: Record<string, unknown> }[] = [];

/** Every level, debug included: what the operator's log could ever show. */
const logger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as const).map((level) => [
    level,
    (msg: string, fields: Record<string, unknown> = {}) => logged.push({ level, msg, fields }),
  ]),
) as unknown as Logger;

afterEach(async () => {
  if (serve) await stop(serve);
  serve = undefined;
  await data?.remove();
  data = undefined;
  await stack?.close();
  stack = undefined;
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  logged = [];
});

/** What the test's resolver answers for each name; anything else does not resolve. */
const names = new Map<string, string[]>();

async function resolve(hostname: string): Promise<ResolvedAddress[]> {
  const addresses = names.get(hostname);
  if (!addresses) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

async function setup(
  network: DaemonOptions['webhookNetwork'] = {},
  policy: Partial<RetryPolicy> = FAST_POLICY,
): Promise<Stack> {
  names.clear();
  stack = await startStack({
    daemon: { webhooks: policy, log: logger, webhookNetwork: { resolve, ...network } },
  });
  return stack;
}

/** For tests about ownership and what is shown, not about addresses: keys may reach loopback. */
const KEYS_REACH_LOOPBACK = { keyNetworksForTests: ['127.0.0.0/8'] };

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** Loosely typed for the tests' reading: a created endpoint, a page, or an error envelope. */
type ApiJson = Record<string, unknown> & { data: Record<string, unknown>[]; error: Record<string, unknown> };

/** A /v1 call over the real listener at `baseUrl`; `text` is the whole answer, to search. */
async function api(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const result = await http({ baseUrl, key }, path, { method, key, body });
  const json = (result.json ?? {}) as ApiJson;
  return { status: result.status, json, text: JSON.stringify(result.json) };
}

/** An endpoint that subscribes to an event these tests never cause, on a loopback port. */
function registerQuiet(s: Stack, key: string) {
  return api(s.baseUrl, key, 'POST', '/v1/webhooks', {
    url: 'http://127.0.0.1:9/never-sent',
    events: ['claim_code.redeemed'],
  });
}

async function hooksKey(s: Stack, name: string): Promise<{ id: string; key: string }> {
  const created = await s.data.createKey('--name', name, '--scopes', 'webhooks:manage,players:ban');
  await eventually(async () => (await api(s.baseUrl, created.key, 'GET', '/v1/webhooks')).status === 200);
  return created;
}

function unbanned(s: Stack): Player[] {
  return s.sim!.world.players.list.values().filter((p) => !p.moderation.ban.banned);
}

async function ban(s: Stack, player: Player, reason = 'griefing'): Promise<void> {
  const banned = await api(s.baseUrl, s.key, 'POST', `/v1/players/${player.platform_id}/ban`, {
    duration: 2,
    duration_unit: 'days',
    reason,
  });
  expect(banned.status).toBe(200);
}

async function addWithCli(s: Stack, ...flags: string[]): Promise<string> {
  const result = await s.data.cli('webhooks', 'add', '--data-dir', s.data.dir, '--json', ...flags);
  if (result.code !== 0) throw new Error(result.stderr);
  const { id } = JSON.parse(result.stdout) as { id: string };
  await eventually(() => s.daemon.webhooks.get(id) !== undefined);
  return id;
}

const lastAttempt = (s: Stack, id: string) => s.daemon.webhooks.outbox(id).recent.at(-1);

describe('registering a webhook through /v1 on a real modgate serve', () => {
  it('refuses every URL that does not reach a public address with 400 validation_error naming url', async () => {
    data = await makeDataDir();
    const { key } = await data.createKey('--name', 'hooks', '--scopes', 'webhooks:manage');
    let apiPort: number;
    ({ serve, apiPort } = await startServe(data.dir));
    const base = `http://127.0.0.1:${apiPort}`;
    const hostile = [
      `http://127.0.0.1:${apiPort}/v1/server`,
      `http://localhost:${apiPort}/`,
      `http://2130706433:${apiPort}/`,
      `http://0x7f.1:${apiPort}/`,
      `http://0177.0.0.1:${apiPort}/`,
      `http://[::1]:${apiPort}/`,
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[2002:a9fe:a9fe::1]/',
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.1.1:8443/',
      'https://100.64.0.1/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
      'https://203.0.113.5/',
      'https://localhost/',
    ];
    for (const url of hostile) {
      const created = await api(base, key, 'POST', '/v1/webhooks', { url, events: ['*'] });
      expect(created.status, url).toBe(400);
      expect(created.json['error'], url).toMatchObject({
        code: 'validation_error',
        details: { errors: [expect.objectContaining({ in: 'body', path: 'url' })] },
      });
    }
    expect((await api(base, key, 'GET', '/v1/webhooks')).json['data']).toEqual([]);
  });

  it("refuses the daemon's own ports in the words of any other loopback port, so a key cannot find them", async () => {
    data = await makeDataDir();
    const { key } = await data.createKey('--name', 'hooks', '--scopes', 'webhooks:manage');
    const [adminPort, metricsPort, otherPort] = [await freePort(), await freePort(), await freePort()];
    const extra = [
      '--admin-listen',
      `127.0.0.1:${adminPort}`,
      '--metrics-listen',
      `127.0.0.1:${metricsPort}`,
    ];
    let apiPort: number;
    let modPort: number;
    ({ serve, apiPort, modPort } = await startServe(data.dir, { extra }));
    const refusal = async (port: number) => {
      const created = await api(`http://127.0.0.1:${apiPort}`, key, 'POST', '/v1/webhooks', {
        url: `https://127.0.0.1:${port}/hook`,
        events: ['*'],
      });
      expect(created.status, String(port)).toBe(400);
      const { code, message, details } = created.json['error'];
      return { code, message, details };
    };
    const other = await refusal(otherPort);
    expect(other.message).toContain('not a public address');
    for (const port of [apiPort, modPort, adminPort, metricsPort]) expect(await refusal(port)).toEqual(other);
  });
});

describe('the address rule at delivery', () => {
  it('blocks a name that resolved public at registration and resolves to loopback at delivery', async () => {
    const s = await setup();
    const hook = await receiver();
    const { key } = await hooksKey(s, 'hooks');
    names.set('rebind.test', ['93.184.215.14']);
    const url = `https://rebind.test:${new URL(hook.url).port}/hook`;
    const created = await api(s.baseUrl, key, 'POST', '/v1/webhooks', { url, events: ['player.banned'] });
    expect(created.status).toBe(201);
    names.set('rebind.test', ['127.0.0.1']);
    await ban(s, unbanned(s)[0] as Player);
    const id = created.json['id'] as string;
    await eventually(() => lastAttempt(s, id) !== undefined);
    const deliveries = await api(s.baseUrl, key, 'GET', `/v1/webhooks/${id}/deliveries`);
    expect(deliveries.json['data'][0]).toMatchObject({
      outcome: 'failed',
      status: null,
      error: 'blocked_address',
    });
    expect(hook.requests).toEqual([]);
  });

  it("blocks a key's endpoint that points at loopback in any spelling, however it got into webhooks.json", async () => {
    const s = await setup();
    const hook = await receiver();
    const { id: keyId } = await hooksKey(s, 'hooks');
    const port = new URL(hook.url).port;
    const urls = [`http://2130706433:${port}/`, `http://0x7f.1:${port}/`, `https://[::ffff:7f00:1]:${port}/`];
    const endpoints = urls.map((url) =>
      newEndpoint(
        {
          url,
          events: ['player.banned'],
          format: 'standard',
          allowHttp: false,
          sensitiveFields: false,
          description: null,
          createdBy: keyId,
          startAfter: s.daemon.events.lastId(),
        },
        new Date(),
      ),
    );
    await updateEndpoints(s.data.dir, (current) => [...current, ...endpoints]);
    await s.daemon.reload(); // a hand edit counts from the next reload
    await eventually(() => endpoints.every((e) => s.daemon.webhooks.get(e.id) !== undefined));
    await ban(s, unbanned(s)[0] as Player);
    for (const endpoint of endpoints) {
      await eventually(() => lastAttempt(s, endpoint.id) !== undefined);
      expect(lastAttempt(s, endpoint.id)).toMatchObject({ outcome: 'failed', error: 'blocked_address' });
    }
    expect(hook.requests).toEqual([]);
  });

  it("lets the operator's CLI register a loopback receiver, but never the daemon's own API", async () => {
    const s = await setup();
    const hook = await receiver();
    const bot = await addWithCli(s, '--url', hook.url, '--events', 'player.banned');
    const apiPort = s.daemon.api.port;
    // With the daemon running the CLI registers through it, which knows its own listeners: refused
    // at once (exit 2); offline, such an entry is blocked at delivery (the test above).
    for (const url of [`http://2130706433:${apiPort}/v1/server`, `http://0x7f.1:${apiPort}/`]) {
      const refused = await s.data.cli(
        'webhooks',
        'add',
        '--data-dir',
        s.data.dir,
        '--url',
        url,
        '--events',
        'all',
      );
      expect(refused.code, url).toBe(2);
      expect(refused.stderr, url).toContain("is one of this daemon's own listeners");
    }
    await ban(s, unbanned(s)[0] as Player);
    await eventually(() => hook.requests.length === 1 && lastAttempt(s, bot)?.outcome === 'delivered');
    expect(s.daemon.webhooks.list()).toHaveLength(1);
  });

  it('takes [webhooks] allow_networks for the operator at a reload, never for a key', async () => {
    const s = await setup();
    expect(s.daemon.webhooks.ruleFor(null).networks).toEqual([]);
    await s.daemon.reload({ webhookAllowNetworks: ['10.0.0.0/8'] });
    expect(s.daemon.webhooks.ruleFor(null).networks).toEqual(['10.0.0.0/8']);
    expect(s.daemon.webhooks.ruleFor('key_x').networks).toEqual([]);
    names.set('intranet.test', ['10.1.2.3']);
    const { key } = await hooksKey(s, 'hooks');
    const refused = await api(s.baseUrl, key, 'POST', '/v1/webhooks', {
      url: 'https://intranet.test/hook',
      events: ['*'],
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('intranet.test does not resolve to reachable addresses only');
    expect(refused.text).not.toContain('10.1.2.3');
    expect(await s.daemon.webhooks.checkTarget(new URL('https://intranet.test/hook'), null)).toBeNull();
  });
});

describe('what a key reads back', () => {
  it("shows the status and a fixed failure class, never the receiver's body, error text or headers", async () => {
    const s = await setup(KEYS_REACH_LOOPBACK, { ...FAST_POLICY, baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const secret = 'internal-detail-7f3a';
    const failing = await receiver(() => ({ status: 500, headers: { 'x-leak': secret }, body: secret }));
    const moved = await receiver(() => ({ status: 302, headers: { location: `http://10.9.8.7/${secret}` } }));
    const closed = await receiver();
    const closedUrl = closed.url;
    await closed.close();
    receivers = receivers.filter((r) => r !== closed);
    const { key } = await hooksKey(s, 'hooks');
    const ids: string[] = [];
    for (const url of [failing.url, moved.url, closedUrl]) {
      const created = await api(s.baseUrl, key, 'POST', '/v1/webhooks', { url, events: ['player.banned'] });
      ids.push(created.json['id'] as string);
    }
    await ban(s, unbanned(s)[0] as Player);
    await eventually(() => ids.every((id) => lastAttempt(s, id) !== undefined));
    const shown = await Promise.all(
      ids.map((id) => api(s.baseUrl, key, 'GET', `/v1/webhooks/${id}/deliveries`)),
    );
    expect(shown.map((r) => r.json['data'][0])).toMatchObject([
      { status: 500, error: 'http_status' },
      { status: 302, error: 'redirect' },
      { status: null, error: 'refused' },
    ]);
    for (const response of shown) {
      expect(response.text).not.toContain(secret);
      expect(response.text).not.toContain('10.9.8.7');
      expect(response.text).not.toMatch(/ECONNREFUSED|answered|location/i);
    }
    const listed = await s.data.cli(
      'webhooks',
      'deliveries',
      ids[1] as string,
      '--data-dir',
      s.data.dir,
      '--json',
    );
    expect(listed.stdout).not.toContain('10.9.8.7');
  });

  it('sends a new endpoint only the events logged after its registration', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const [before, after] = unbanned(s) as [Player, Player];
    await ban(s, before);
    const [viaApi, viaCli] = [await receiver(), await receiver()];
    const { key } = await hooksKey(s, 'hooks');
    const created = await api(s.baseUrl, key, 'POST', '/v1/webhooks', { url: viaApi.url, events: ['*'] });
    expect(created.status).toBe(201);
    await addWithCli(s, '--url', viaCli.url, '--events', 'all');
    await ban(s, after);
    const bans = (r: Receiver) =>
      r.requests
        .map((q) => q.json as { type: string; data: { player: { platform_id: string } } })
        .filter((e) => e.type === 'player.banned')
        .map((e) => e.data.player.platform_id);
    await eventually(() => bans(viaApi).length > 0 && bans(viaCli).length > 0);
    expect(bans(viaApi)).toEqual([after.platform_id]);
    expect(bans(viaCli)).toEqual([after.platform_id]);
  });
});

describe('whose endpoints a key sees', () => {
  it("hides another key's endpoints (404 as if absent) and caps each key at 10", async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const [first, second] = [await hooksKey(s, 'first'), await hooksKey(s, 'second')];
    const register = (key: string) => registerQuiet(s, key);
    const mine = await register(first.key);
    const id = mine.json['id'] as string;
    const operators = await addWithCli(
      s,
      '--url',
      'http://127.0.0.1:9/op',
      '--events',
      'claim_code.redeemed',
    );
    const seen = await api(s.baseUrl, second.key, 'GET', '/v1/webhooks');
    expect(seen.json['data']).toEqual([]);
    const ownList = await api(s.baseUrl, first.key, 'GET', '/v1/webhooks');
    expect(ownList.json.data.map((e) => e['id'])).toEqual([id]);
    expect(ownList.text).not.toContain(operators);
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${operators}`],
      ['DELETE', `/v1/webhooks/${operators}`],
    ] as const) {
      const answer = await api(s.baseUrl, second.key, method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json['error']).toMatchObject({ code: 'not_found' });
    }
    expect(s.daemon.webhooks.get(id)).toBeDefined();
    expect(s.daemon.webhooks.get(operators)).toBeDefined();
    for (let i = 1; i < 10; i += 1) expect((await register(first.key)).status).toBe(201);
    const eleventh = await register(first.key);
    expect(eleventh.status).toBe(409);
    expect(eleventh.json['error']).toMatchObject({
      code: 'conflict',
      message: 'This key already has 10 webhooks.',
    });
    expect((await register(second.key)).status).toBe(201);
  });

  it('caps the server at 50 endpoints, whoever registered them', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const { key } = await hooksKey(s, 'hooks');
    const operators = Array.from({ length: 49 }, () =>
      newEndpoint(
        {
          url: 'http://127.0.0.1:9/op',
          events: ['claim_code.redeemed'],
          format: 'standard',
          allowHttp: false,
          sensitiveFields: true,
          description: null,
          createdBy: null,
          startAfter: 0,
        },
        new Date(),
      ),
    );
    await updateEndpoints(s.data.dir, (current) => [...current, ...operators]);
    await s.daemon.reload();
    await eventually(() => s.daemon.webhooks.list().length === 49);
    expect((await registerQuiet(s, key)).status).toBe(201);
    const full = await registerQuiet(s, key);
    expect(full.status).toBe(409);
    expect(full.json.error).toMatchObject({
      code: 'conflict',
      message: 'This server already has 50 webhooks.',
    });
  });
});

describe('endpoints of a key that no longer works', () => {
  it('disables them with key_revoked within moments of `keys revoke`, and enable refuses them', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const { id: keyId, key } = await hooksKey(s, 'doomed');
    const created = await registerQuiet(s, key);
    const id = created.json['id'] as string;
    const revoked = await s.data.cli('keys', 'revoke', '--data-dir', s.data.dir, keyId);
    expect(revoked.code).toBe(0);
    await eventually(() => s.daemon.webhooks.get(id)?.disabledReason === 'key_revoked');
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'webhook endpoint disabled',
        fields: expect.objectContaining({ webhook_id: id, reason: 'key_revoked' }),
      }),
    );
    const enable = await s.data.cli('webhooks', 'enable', '--data-dir', s.data.dir, id);
    expect(enable.code).not.toBe(0);
    expect(enable.stderr).toContain('key_revoked');
    expect(enable.stderr).toContain(`modgate webhooks remove ${id}`);
  });

  it('disables them with key_expired once the key has expired', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const { id: keyId, key } = await hooksKey(s, 'short-lived');
    const created = await registerQuiet(s, key);
    const id = created.json['id'] as string;
    const dataDir = await DataDir.open(s.data.dir);
    await dataDir.update(keysFile, (records) =>
      records.map((r) => (r.id === keyId ? { ...r, expiresAt: new Date(Date.now() - 1_000) } : r)),
    );
    await s.daemon.reload();
    await eventually(() => s.daemon.webhooks.get(id)?.disabledReason === 'key_expired');
  });

  it('disables them when the key expires, with nothing else happening, and enable refuses them 409', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const { id: keyId, key } = await hooksKey(s, 'expiring');
    const id = (await registerQuiet(s, key)).json['id'] as string;
    const dataDir = await DataDir.open(s.data.dir);
    await dataDir.update(keysFile, (records) =>
      records.map((r) => (r.id === keyId ? { ...r, expiresAt: new Date(Date.now() + 3_000) } : r)),
    );
    await s.daemon.reload(); // the key changes once, before it expires; no event, no change after
    expect(s.daemon.webhooks.get(id)?.disabledAt).toBeNull();
    await eventually(() => s.daemon.webhooks.get(id)?.disabledReason === 'key_expired');
    const enable = await adminRequest({
      dataDir: s.data.dir,
      method: 'POST',
      path: `/admin/v1/webhooks/${id}/enable`,
    });
    expect(enable.status).toBe(409);
    expect(enable.json).toMatchObject({ error: { code: 'conflict' } });
  });
});

describe('Discord endpoints', () => {
  it('escapes what players wrote, pings nobody, and never logs the webhook URL', async () => {
    const s = await setup({}, { baseDelayMs: 10, maxDelayMs: 30, retryWindowMs: 300, timeoutMs: 2_000 });
    const hook = await receiver(() => ({ status: 500, body: 'nope' }));
    const token = 'tok3n-Secret_part-do-not-log';
    const id = await addWithCli(
      s,
      '--url',
      `${hook.url}/api/webhooks/1234567890/${token}`,
      '--format',
      'discord',
      '--events',
      'player.banned',
    );
    await ban(s, unbanned(s)[0] as Player, '[Free Nitro](https://evil.example/x) @everyone **now**');
    await eventually(() => s.daemon.webhooks.get(id)?.disabledAt != null);
    const message = hook.requests[0]?.json as {
      allowed_mentions: unknown;
      embeds: { fields: { name: string; value: string }[] }[];
    };
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const reason = message.embeds[0]?.fields.find((f) => f.name === 'Reason')?.value;
    expect(reason).toBe('\\[Free Nitro\\](https\\://evil.example/x) \\@everyone \\*\\*now\\*\\*');
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toContain(token);
  });
});
