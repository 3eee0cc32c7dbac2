/**
 * The admin API's webhooks (docs/admin.md, "Webhooks") over a real admin.sock of an in-process
 * daemon with the simulator: every endpoint with its owner, the operator's address rule for
 * endpoints created here, disable and enable (the route and the CLI), rotate-secret (a receiver holding either secret accepts), an
 * immediate signed test message, deliveries, delete; each change acting before the answer and
 * each write in the audit log with its actor.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonOptions } from '../../daemon/daemon.ts';
import type { RetryPolicy } from '../../daemon/events/webhooks/retry-policy.ts';
import type { Player } from '../../mod-sim/world/index.ts';
import { adminRequest } from '../../harness/admin.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { accepts, startReceiver, type ReceivedRequest, type Receiver } from '../support/webhook-receiver.ts';

const FAST: Partial<RetryPolicy> = {
  baseDelayMs: 10,
  maxDelayMs: 50,
  retryWindowMs: 60_000,
  timeoutMs: 2_000,
};
/** Keys may reach the loopback receivers here (docs/events.md); the operator may anyway. */
const KEYS_REACH_LOOPBACK: DaemonOptions['webhookNetwork'] = { keyNetworksForTests: ['127.0.0.0/8'] };

let stack: Stack | undefined;
let receivers: Receiver[] = [];

afterEach(async () => {
  await stack?.close();
  stack = undefined;
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function setup(webhookNetwork?: DaemonOptions['webhookNetwork']): Promise<Stack> {
  stack = await startStack({ daemon: { webhooks: FAST, ...(webhookNetwork ? { webhookNetwork } : {}) } });
  return stack;
}

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

type Json = Record<string, unknown>;

async function admin(s: Stack, method: string, path: string, body?: unknown) {
  const answer = await adminRequest({
    dataDir: s.data.dir,
    method,
    path,
    ...(body === undefined ? {} : { body }),
  });
  return { status: answer.status, json: answer.json as Json };
}

async function v1(s: Stack, method: string, path: string, body?: unknown) {
  const response = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${s.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text === '' ? null : JSON.parse(text)) as Json };
}

const banOf = (player: Player) => (request: ReceivedRequest) =>
  (request.json as { type?: string; data?: { player?: { platform_id?: string } } } | null)?.data?.player
    ?.platform_id === player.platform_id;

async function ban(s: Stack): Promise<Player> {
  const player = s.sim!.world.players.list.values().find((p) => !p.moderation.ban.banned) as Player;
  const answer = await v1(s, 'POST', `/v1/players/${player.platform_id}/ban`, {
    duration: 2,
    duration_unit: 'days',
    reason: 'griefing',
  });
  expect(answer.status).toBe(200);
  return player;
}

describe('admin webhooks', () => {
  it("refuses the operator an endpoint on the daemon's own admin listener, as on its other listeners", async () => {
    stack = await startStack({
      daemon: { webhooks: FAST, admin: { listen: { host: '127.0.0.1', port: 0 } } },
    });
    const address = stack.daemon.admin.address;
    expect(address).not.toBeNull();
    const refused = await admin(stack, 'POST', '/admin/v1/webhooks', {
      url: `http://127.0.0.1:${address!.port}/admin/v1/api`,
      events: ['*'],
      allow_http: true,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain("this daemon's own listeners");
  });

  it('lets the operator reach loopback and its allowed networks where a key may not', async () => {
    const s = await setup({ allowNetworks: ['10.0.0.0/8'] });
    const hook = await receiver();
    for (const url of [hook.url, 'https://10.1.2.3/hook']) {
      const refused = await v1(s, 'POST', '/v1/webhooks', { url, events: ['*'] });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.json)).toContain('public address');
    }
    const created = await admin(s, 'POST', '/admin/v1/webhooks', {
      url: hook.url,
      events: ['player.banned'],
      description: 'ops channel',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      url: hook.url,
      created_by: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    // The change acted before the answer: the worker runs, no file watcher involved.
    expect(s.daemon.webhooks.get(created.json['id'] as string)).toBeDefined();
    const lan = { url: 'http://10.1.2.3/hook', events: ['player.unbanned'] };
    const plainHttp = await admin(s, 'POST', '/admin/v1/webhooks', lan);
    expect(plainHttp.status).toBe(400);
    expect(JSON.stringify(plainHttp.json)).toContain('plain http');
    const allowed = await admin(s, 'POST', '/admin/v1/webhooks', { ...lan, allow_http: true });
    expect(allowed.status).toBe(201);
    expect(allowed.json).toMatchObject({ allow_http: true, created_by: null });
    const elsewhere = await admin(s, 'POST', '/admin/v1/webhooks', {
      url: 'https://192.168.1.9/hook',
      events: ['*'],
    });
    expect(elsewhere.status).toBe(400);
    expect(JSON.stringify(elsewhere.json)).toContain('allow_networks');
  });

  it("lists every endpoint, the operator's and each key's, with its owner and never a secret", async () => {
    const keyHook = await receiver();
    const operatorHook = await receiver();
    const s = await setup(KEYS_REACH_LOOPBACK);
    const byKey = await v1(s, 'POST', '/v1/webhooks', { url: keyHook.url, events: ['*'] });
    await admin(s, 'POST', '/admin/v1/webhooks', { url: operatorHook.url, events: ['*'] });
    const listed = await admin(s, 'GET', '/admin/v1/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ has_more: false, next_cursor: null });
    const owners = (listed.json['data'] as Json[]).map((row) => row['owner']);
    expect(owners).toEqual(
      expect.arrayContaining([
        { kind: 'operator', key_id: null, key_name: null },
        { kind: 'key', key_id: byKey.json['created_by'], key_name: 'all-scopes' },
      ]),
    );
    expect(JSON.stringify(listed.json)).not.toContain('whsec_');
  });

  it('sends a signed test message at once and answers with its outcome', async () => {
    const s = await setup();
    const [good, failing] = [await receiver(), await receiver(() => ({ status: 500 }))];
    const hook = await admin(s, 'POST', '/admin/v1/webhooks', { url: good.url, events: ['player.banned'] });
    good.secret = hook.json['secret'] as string;
    const tested = await admin(s, 'POST', `/admin/v1/webhooks/${String(hook.json['id'])}/test`);
    expect(tested.status).toBe(200);
    expect(tested.json).toMatchObject({ outcome: 'delivered', status: 204, error: null });
    expect(good.requests).toHaveLength(1);
    expect(good.requests[0]?.verified).toBe(true);
    expect(good.requests[0]?.json).toMatchObject({ id: 0, type: 'webhook.test' });
    expect(good.requests[0]?.messageId).toBe(tested.json['message_id']);
    const bad = await admin(s, 'POST', '/admin/v1/webhooks', { url: failing.url, events: ['*'] });
    const failed = await admin(s, 'POST', `/admin/v1/webhooks/${String(bad.json['id'])}/test`);
    expect(failed.json).toMatchObject({ outcome: 'failed', status: 500, error: 'http_status' });
    // A test is not a delivery: nothing in the deliveries, no failure run.
    const deliveries = await admin(s, 'GET', `/admin/v1/webhooks/${String(bad.json['id'])}/deliveries`);
    expect(deliveries.json).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await admin(s, 'POST', '/admin/v1/webhooks/wh_0000000000000000/test')).status).toBe(404);
  });

  it('edits what an endpoint receives and its description, acting from its next message', async () => {
    const s = await setup();
    const hook = await receiver();
    const created = await admin(s, 'POST', '/admin/v1/webhooks', {
      url: hook.url,
      events: ['mod.connected'],
      description: 'ops',
    });
    const id = String(created.json['id']);
    const edited = await admin(s, 'PATCH', `/admin/v1/webhooks/${id}`, {
      events: ['player.banned'],
      description: '  moderation  ',
    });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({
      id,
      events: ['player.banned'],
      description: 'moderation',
      url: hook.url,
    });
    expect(edited.json).not.toHaveProperty('secret');
    const player = await ban(s);
    await eventually(() => hook.requests.some(banOf(player)));
    const cleared = await admin(s, 'PATCH', `/admin/v1/webhooks/${id}`, { description: null });
    expect(cleared.json).toMatchObject({ events: ['player.banned'], description: null });
    const empty = await admin(s, 'PATCH', `/admin/v1/webhooks/${id}`, {});
    expect(empty.status).toBe(400);
    const url = await admin(s, 'PATCH', `/admin/v1/webhooks/${id}`, { url: 'http://127.0.0.1:1/x' });
    expect(url.status).toBe(400);
    const missing = await admin(s, 'PATCH', '/admin/v1/webhooks/wh_0000000000000000', { events: ['*'] });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { details: { resource: 'webhook' } } });
  });

  it('re-enables an endpoint disabled after a 410, which then receives the message it stopped on', async () => {
    const s = await setup();
    let gone = true;
    const hook = await receiver(() => (gone ? { status: 410 } : { status: 204 }));
    const created = await admin(s, 'POST', '/admin/v1/webhooks', {
      url: hook.url,
      events: ['player.banned'],
    });
    const id = created.json['id'] as string;
    hook.secret = created.json['secret'] as string;
    const player = await ban(s);
    await eventually(() => s.daemon.webhooks.get(id)?.disabledAt !== null);
    expect((await admin(s, 'GET', `/admin/v1/webhooks/${id}`)).json).toMatchObject({ status: 'disabled' });
    gone = false;
    const enabled = await admin(s, 'POST', `/admin/v1/webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    // Enabled, with the message it stopped on still to deliver: `retrying` until it goes through,
    // which the worker, started before the answer, may already have done.
    expect(enabled.json).toMatchObject({ disabled_at: null, disabled_reason: null });
    expect(['retrying', 'active']).toContain(enabled.json['status']);
    await eventually(() => hook.processed.some(banOf(player)));
    const deliveries = await admin(s, 'GET', `/admin/v1/webhooks/${id}/deliveries?limit=5`);
    expect((deliveries.json['data'] as Json[])[0]).toMatchObject({ outcome: 'delivered', status: 204 });
    expect((await admin(s, 'GET', `/admin/v1/webhooks/${id}`)).json).toMatchObject({ status: 'active' });
  });

  it("disables an endpoint at the operator's word: nothing is delivered until enable, which then sends what it missed", async () => {
    const s = await setup();
    const hook = await receiver();
    const created = await admin(s, 'POST', '/admin/v1/webhooks', {
      url: hook.url,
      events: ['player.banned'],
    });
    const id = created.json['id'] as string;
    hook.secret = created.json['secret'] as string;
    const disabled = await admin(s, 'POST', `/admin/v1/webhooks/${id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({ id, status: 'disabled', disabled_reason: 'operator' });
    // Disabling again changes nothing, and keeps the reason.
    expect((await admin(s, 'POST', `/admin/v1/webhooks/${id}/disable`)).json).toMatchObject({
      disabled_at: disabled.json['disabled_at'],
      disabled_reason: 'operator',
    });
    const missed = await ban(s);
    const later = await ban(s);
    // The event log has both bans, and the stopped endpoint delivered neither.
    await eventually(async () => {
      const events = await v1(s, 'GET', '/v1/events?types=player.banned');
      return (events.json['data'] as Json[] | undefined)?.length === 2;
    });
    expect(hook.requests.some(banOf(missed))).toBe(false);
    expect((await admin(s, 'POST', '/admin/v1/webhooks/wh_0000000000000000/disable')).status).toBe(404);
    const enabled = await admin(s, 'POST', `/admin/v1/webhooks/${id}/enable`);
    expect(enabled.json).toMatchObject({ disabled_at: null, disabled_reason: null });
    await eventually(() => hook.processed.some(banOf(missed)) && hook.processed.some(banOf(later)));
  });

  it('disables and enables an endpoint with `modgate webhooks disable|enable` through the running daemon', async () => {
    const s = await setup();
    const hook = await receiver();
    const created = await admin(s, 'POST', '/admin/v1/webhooks', { url: hook.url, events: ['*'] });
    const id = created.json['id'] as string;
    const off = await s.data.cli('webhooks', 'disable', '--data-dir', s.data.dir, id);
    expect(off).toMatchObject({ code: 0 });
    expect(off.stdout).toBe(
      `Disabled webhook ${id}; it receives nothing until \`modgate webhooks enable ${id}\`.\n`,
    );
    expect(s.daemon.webhooks.get(id)).toMatchObject({ disabledReason: 'operator' });
    expect((await s.data.cli('webhooks', 'disable', '--data-dir', s.data.dir, id)).stdout).toBe(
      `Webhook ${id} is already disabled.\n`,
    );
    const list = await s.data.cli('webhooks', 'list', '--data-dir', s.data.dir);
    expect(list.stdout).toMatch(/DISABLED since .* \(operator\)/);
    expect((await s.data.cli('webhooks', 'enable', '--data-dir', s.data.dir, id)).stdout).toBe(
      `Enabled webhook ${id}.\n`,
    );
    expect(s.daemon.webhooks.get(id)?.disabledAt).toBeNull();
    const audit = await admin(s, 'GET', '/admin/v1/audit?route=/admin/v1/webhooks/{id}/disable');
    expect(audit.json['data']).toHaveLength(2);
  });

  it('refuses to enable the endpoint of a revoked key with 409, and removes any endpoint at once', async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const hook = await receiver();
    const created = await v1(s, 'POST', '/v1/webhooks', { url: hook.url, events: ['*'] });
    const id = created.json['id'] as string;
    const keyId = created.json['created_by'] as string;
    expect((await s.data.cli('keys', 'revoke', '--data-dir', s.data.dir, keyId)).code).toBe(0);
    await eventually(() => s.daemon.webhooks.get(id)?.disabledReason === 'key_revoked');
    const refused = await admin(s, 'POST', `/admin/v1/webhooks/${id}/enable`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: { code: 'conflict' } });
    expect((await admin(s, 'DELETE', `/admin/v1/webhooks/${id}`)).status).toBe(204);
    expect(s.daemon.webhooks.get(id)).toBeUndefined();
    expect((await admin(s, 'DELETE', `/admin/v1/webhooks/${id}`)).status).toBe(404);
    expect((await admin(s, 'GET', `/admin/v1/webhooks/${id}/deliveries`)).status).toBe(404);
  });

  it("rotates any endpoint's secret: during the overlap a receiver holding either secret accepts", async () => {
    const s = await setup(KEYS_REACH_LOOPBACK);
    const hook = await receiver();
    const created = await v1(s, 'POST', '/v1/webhooks', { url: hook.url, events: ['player.banned'] });
    const id = created.json['id'] as string;
    const rotated = await admin(s, 'POST', `/admin/v1/webhooks/${id}/rotate-secret`, { overlap: 600 });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ id, previous_secret_until: expect.any(String) });
    const tooLong = await admin(s, 'POST', `/admin/v1/webhooks/${id}/rotate-secret`, { overlap: 604_801 });
    expect(tooLong.status).toBe(400);
    const player = await ban(s);
    await eventually(() => hook.requests.some(banOf(player)));
    const delivery = hook.requests.find(banOf(player));
    expect(accepts(created.json['secret'], delivery)).toBe(true);
    expect(accepts(rotated.json['secret'], delivery)).toBe(true);
  });

  it('writes every admin webhook change to the audit log with its actor', async () => {
    const s = await setup();
    const hook = await receiver();
    const created = await admin(s, 'POST', '/admin/v1/webhooks', { url: hook.url, events: ['*'] });
    const id = created.json['id'] as string;
    await admin(s, 'POST', `/admin/v1/webhooks/${id}/test`);
    await admin(s, 'POST', `/admin/v1/webhooks/${id}/rotate-secret`, {});
    await admin(s, 'DELETE', `/admin/v1/webhooks/${id}`);
    await eventually(async () => {
      const audit = await admin(s, 'GET', '/admin/v1/audit?actor=local&route=/admin/v1/webhooks/{id}/test');
      return (audit.json['data'] as Json[]).length === 1;
    });
    const audit = await admin(s, 'GET', `/admin/v1/audit?actor=local:${process.getuid?.() ?? 0}`);
    const routes = (audit.json['data'] as Json[]).map(
      (line) => `${String(line['method'])} ${String(line['route'])}`,
    );
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/webhooks',
        'POST /admin/v1/webhooks/{id}/test',
        'POST /admin/v1/webhooks/{id}/rotate-secret',
        'DELETE /admin/v1/webhooks/{id}',
      ]),
    );
    expect((audit.json['data'] as Json[])[0]).toMatchObject({ key_id: null, actor: { kind: 'local' } });
  });
});
