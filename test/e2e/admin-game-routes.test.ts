/**
 * The game on the admin API (docs/admin.md, "Game routes") against a real serve and sim: a
 * request under /admin/v1/game answers as the same request under /v1 (shape, validation
 * errors, the game applying it), the game records it with source `panel`, Idempotency-Key
 * replays it, and the admin OpenAPI document lists the routes with their scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { createKey } from '../../harness/data-dir.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';
import { eventually } from '../../harness/stack.ts';

interface Row {
  platform_id: string;
}
interface Violation {
  type: string;
  action: string;
  source: string;
  issued_by: { name: string };
}

describe('game routes on the admin API', () => {
  let stack: PanelStack;
  let apiKey: string;
  let players: string[];

  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    adminRequest({
      url: stack.adminUrl,
      token: stack.token,
      method,
      path: `/admin/v1/game${path}`,
      body,
      headers,
    });
  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  /** A player who is neither banned nor muted, a different one each call. */
  const cleanPlayer = async (): Promise<string> => {
    for (;;) {
      const id = players.shift();
      if (id === undefined) throw new Error('no clean player left');
      const state = (await admin('GET', `/players/${id}/moderation`)).json as {
        ban: { banned: boolean };
        mute: { muted: boolean };
      };
      if (!state.ban.banned && !state.mute.muted) return id;
    }
  };

  beforeAll(async () => {
    stack = await startPanelStack({ eventsRate: 0 });
    apiKey = (await createKey(stack.data.dir, '--name', 'bot', '--scopes', 'all')).key;
    const list = await admin('GET', '/players?limit=100');
    expect(list.status).toBe(200);
    players = (list.json as { data: Row[] }).data.map((row) => row.platform_id);
  });
  afterAll(() => stack?.close());

  it('answers a ban as /v1 does, and the game applies it', async () => {
    const [viaAdmin, viaApi] = [await cleanPlayer(), await cleanPlayer()];
    const body = { duration: 90, duration_unit: 'minutes', reason: 'griefing' };
    const a = await admin('POST', `/players/${viaAdmin}/ban`, body);
    const b = await v1('POST', `/players/${viaApi}/ban`, body);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const shape = (json: unknown) => {
      const { player: _player, ...rest } = json as { player: unknown; ban: Record<string, unknown> };
      return { ...rest, ban: Object.keys(rest.ban).sort() };
    };
    expect(shape(a.json)).toEqual(shape(b.json));
    expect(a.json).toMatchObject({
      player: { platform_id: viaAdmin },
      ban: { banned: true, permanent: false },
    });
    const read = await v1('GET', `/players/${viaAdmin}/moderation`);
    expect(read.json).toMatchObject({ ban: { banned: true, reason: 'griefing' } });
  });

  it('refuses a ban over the cap with the same validation error as /v1', async () => {
    const id = await cleanPlayer();
    const body = { duration: 121, duration_unit: 'months' };
    const a = await admin('POST', `/players/${id}/ban`, body);
    const b = await v1('POST', `/players/${id}/ban`, body);
    expect(a.status).toBe(400);
    expect(b.status).toBe(400);
    const errorsOf = (json: unknown) => (json as { error: { code: string; details: unknown } }).error;
    expect(errorsOf(a.json).code).toBe('validation_error');
    expect(errorsOf(a.json).details).toEqual(errorsOf(b.json).details);
  });

  it('rounds a 90-minute mute to 2 hours, as the game does for /v1', async () => {
    const id = await cleanPlayer();
    const res = await admin('POST', `/players/${id}/mute`, { duration: 90, duration_unit: 'minutes' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ mute: { muted: true, duration_minutes: 120 } });
  });

  it('records a panel ban and unban with source panel and the admin as moderator', async () => {
    const id = await cleanPlayer();
    expect((await admin('POST', `/players/${id}/ban`, { permanent: true })).status).toBe(200);
    expect((await admin('DELETE', `/players/${id}/ban`)).status).toBe(200);
    const violations = await admin('GET', `/players/${id}/violations?limit=10`);
    expect(violations.status).toBe(200);
    const rows = (violations.json as { data: Violation[] }).data.filter((v) => v.type === 'ban');
    expect(rows.map((v) => v.action).sort()).toEqual(['ban', 'unban']);
    for (const row of rows) {
      expect(row.source).toBe('panel');
      expect(row.issued_by.name).toBe('panel-test');
    }
    const fromApi = await cleanPlayer();
    await v1('POST', `/players/${fromApi}/ban`, { permanent: true });
    const apiRows = (await v1('GET', `/players/${fromApi}/violations?limit=10`)).json as {
      data: Violation[];
    };
    expect(apiRows.data.find((v) => v.action === 'ban')?.source).toBe('api');
  });

  it('replays a write sent again with the same Idempotency-Key, and refuses another body', async () => {
    const id = await cleanPlayer();
    const headers = { 'idempotency-key': `panel-${id}` };
    const first = await admin(
      'POST',
      `/players/${id}/mute`,
      { duration: 3, duration_unit: 'hours' },
      headers,
    );
    const again = await admin(
      'POST',
      `/players/${id}/mute`,
      { duration: 3, duration_unit: 'hours' },
      headers,
    );
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    const other = await admin(
      'POST',
      `/players/${id}/mute`,
      { duration: 4, duration_unit: 'hours' },
      headers,
    );
    expect(other.status).toBe(409);
    expect((other.json as { error: { code: string } }).error.code).toBe('idempotency_conflict');
  });

  it("applies a panel session's coin credit once when it is sent again with the same Idempotency-Key", async () => {
    const signIn = await adminRequest({
      url: stack.adminUrl,
      method: 'POST',
      path: '/admin/v1/session',
      body: { token: stack.token },
    });
    const cookie = (signIn.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    const id = players[0] as string;
    const reason = 'credit retried by the panel';
    const send = () =>
      adminRequest({
        url: stack.adminUrl,
        method: 'POST',
        path: `/admin/v1/game/players/${id}/coins`,
        body: { amount: 7, reason },
        headers: { cookie, origin: stack.adminUrl, 'idempotency-key': 'panel-0123456789abcdef' },
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const ledger = await admin('GET', `/economy/transactions?platform_id=${id}&asset=coins&limit=20`);
    const entries = (ledger.json as { data: { reason: string }[] }).data;
    expect(entries.filter((entry) => entry.reason === reason)).toHaveLength(1);
  });

  it('lists a command run through the admin API with source panel, and one through /v1 with source api', async () => {
    const stamp = Date.now().toString(36);
    // The game builds its command catalogue a moment after it starts; until then commands are 503.
    await eventually(async () => (await admin('GET', '/commands/catalog')).status === 200);
    const fromPanel = await admin('POST', '/commands', {
      verb: 'Announce',
      args: [`from the panel ${stamp}`],
    });
    expect(fromPanel.status).toBe(200);
    expect((await v1('POST', '/commands', { verb: 'Announce', args: [`from a bot ${stamp}`] })).status).toBe(
      200,
    );
    const history = await v1('GET', `/commands/history?command=${encodeURIComponent(stamp)}&limit=10`);
    expect(history.status).toBe(200);
    const entries = (history.json as { data: { command: string; source: string | null }[] }).data;
    expect(entries.find((entry) => entry.command.includes('from the panel'))?.source).toBe('panel');
    expect(entries.find((entry) => entry.command.includes('from a bot'))?.source).toBe('api');
    // The panel reads the same history through its game route.
    const panelView = await admin('GET', `/commands/history?command=${encodeURIComponent(stamp)}`);
    expect((panelView.json as { data: { source: string }[] }).data.map((entry) => entry.source)).toEqual([
      'api',
      'panel',
    ]);
  });

  it('records a panel coin credit in the ledger with source panel', async () => {
    const id = players[0] as string;
    const credit = await admin('POST', `/players/${id}/coins`, { amount: 5, reason: 'panel test' });
    expect(credit.status).toBe(200);
    const ledger = await admin('GET', `/economy/transactions?platform_id=${id}&asset=coins&limit=5`);
    expect(ledger.status).toBe(200);
    const entry = (ledger.json as { data: { source: string; reason: string }[] }).data[0];
    expect(entry).toMatchObject({ source: 'panel', reason: 'panel test' });
  });

  it('writes each game write to the audit log with the admin as its actor', async () => {
    const id = await cleanPlayer();
    await admin('DELETE', `/players/${id}/mute`);
    const audit = await adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/audit?route=${encodeURIComponent('/admin/v1/game/players/{ref}/mute')}&limit=5`,
    });
    expect(audit.status).toBe(200);
    const lines = (audit.json as { data: { method: string; actor: { kind: string; token_id: string } }[] })
      .data;
    expect(lines.find((line) => line.method === 'DELETE')?.actor).toMatchObject({
      kind: 'token',
      token_id: stack.tokenId,
    });
  });

  it('lists every game route in the admin OpenAPI document with its /v1 scope', async () => {
    const doc = await adminRequest({ dataDir: stack.data.dir, path: '/admin/v1/openapi.json' });
    type Operation = { operationId: string; 'x-required-scope': string };
    const paths = (doc.json as { paths: Record<string, Record<string, Operation>> }).paths;
    expect(paths['/admin/v1/game/players/{ref}/ban']?.['post']).toMatchObject({
      operationId: 'gameBanPlayer',
      'x-required-scope': 'players:ban',
    });
    expect(paths['/admin/v1/game/players/{ref}/mute']?.['post']?.['x-required-scope']).toBe('players:mute');
    expect(paths['/admin/v1/game/players/{ref}/ban']?.['delete']?.operationId).toBe('gameUnbanPlayer');
    expect(Object.keys(paths).some((path) => path.startsWith('/admin/v1/game/events'))).toBe(false);
    expect(Object.keys(paths).some((path) => path.startsWith('/admin/v1/game/webhooks'))).toBe(false);
  });
});
