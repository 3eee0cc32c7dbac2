/**
 * The group's sanctions on the admin API (docs/admin.md, "Group sanctions") against a real
 * PostgreSQL (harness/postgres.ts) and two real daemons with simulators: the list shows a ban
 * made on another server with its origin and every server's standing, filters and pages by
 * cursor, and a lift on one server unbans the player on every server's game; the receiving
 * server's event log has group.sanction.applied, or group.sanction.failed when its game refuses;
 * and /metrics shows the group's series. One group for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHostPort } from '../../daemon/host-port.ts';
import { adminRequest } from '../../harness/admin.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { eventually, startStack, type Stack } from '../../harness/stack.ts';
import { strangerIds } from '../support/strangers.ts';
import { publishElsewhere } from '../support/group-rows.ts';

const LOOSE = { limit: 1_000_000, windowSec: 60 };
const postgres = postgresAvailable('test/e2e/group-sanctions.test.ts');

let cluster: PostgresCluster;
let a: Stack;
let b: Stack;

function serverOf(databaseUrl: string, name: string): Promise<Stack> {
  return startStack({
    sim: { wallClock: true },
    daemon: {
      group: { databaseUrl, name, share: ['bans', 'mutes'], accept: ['bans', 'mutes'] },
      metrics: { listen: { host: '127.0.0.1', port: 0 }, allow: [] },
      pipeline: { keyRateLimit: LOOSE, edgeRateLimit: LOOSE },
    },
  });
}

beforeAll(async () => {
  if (!postgres.run) return;
  cluster = await startPostgres(postgres.binDir);
  const url = await cluster.createDatabase('group_sanctions');
  [a, b] = [await serverOf(url, 'A'), await serverOf(url, 'B')];
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await cluster?.cleanup();
});

interface Row {
  id: string;
  action: string;
  kind: string;
  platform_id: string;
  origin: { server_id: string; name: string | null; actor: { name: string }; reason: string | null };
  expires_at: string | null;
  servers: { name: string; state: string }[];
}
interface Page {
  data: Row[];
  has_more: boolean;
  next_cursor: string | null;
}

function admin(stack: Stack, path: string, method = 'GET') {
  return adminRequest({ dataDir: stack.data.dir, method, path });
}

async function list(stack: Stack, query: string): Promise<Page> {
  const answer = await admin(stack, `/admin/v1/group/sanctions?${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Page;
}

async function banned(stack: Stack, platformId: string): Promise<boolean> {
  const answer = await stack.call(`/v1/players/${platformId}/moderation`);
  if (answer.status === 404) return false;
  return (answer.json as { ban: { banned: boolean } }).ban.banned;
}

async function ban(stack: Stack, platformId: string, reason: string): Promise<void> {
  const answer = await stack.call(`/v1/players/${platformId}/ban`, {
    method: 'POST',
    body: JSON.stringify({ duration: 24, duration_unit: 'hours', reason }),
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
}

const strangerId = strangerIds('7656119900001');

describe.runIf(postgres.run)('group sanctions on the admin API', () => {
  it('lists a ban made on another server with its origin and where each server stands', async () => {
    const player = strangerId();
    await ban(a, player, 'aimbot');
    await eventually(async () =>
      (await list(b, `platform_id=${player}`)).data.some((row) =>
        row.servers.every((s) => s.state !== 'pending'),
      ),
    );
    const [row] = (await list(b, `platform_id=${player}`)).data;
    expect(row).toMatchObject({ action: 'ban', kind: 'bans', platform_id: player });
    expect(row?.origin).toMatchObject({ server_id: a.daemon.group?.serverId, name: 'A', reason: 'aimbot' });
    expect(row?.expires_at).not.toBeNull();
    expect(row?.servers.map((server) => [server.name, server.state])).toEqual([
      ['A', 'origin'],
      ['B', 'done'],
    ]);
  });

  it('filters by kind and origin and pages with a cursor bound to its filters', async () => {
    const first = strangerId();
    const second = strangerId();
    await ban(b, first, 'one');
    await ban(b, second, 'two');
    const origin = b.daemon.group?.serverId as string;
    await eventually(async () => (await list(a, `origin=${origin}&kind=bans`)).data.length >= 2);
    const page1 = await list(a, `origin=${origin}&kind=bans&limit=1`);
    expect(page1.data.map((row) => row.platform_id)).toEqual([second]);
    expect(page1.has_more).toBe(true);
    const page2 = await list(a, `origin=${origin}&kind=bans&limit=1&cursor=${page1.next_cursor}`);
    expect(page2.data.map((row) => row.platform_id)).toEqual([first]);
    expect(page2.has_more).toBe(false);
    // A cursor is bound to its filters: another filter with it is refused.
    const moved = await admin(a, `/admin/v1/group/sanctions?kind=mutes&limit=1&cursor=${page1.next_cursor}`);
    expect(moved.status).toBe(400);
    expect((await list(a, 'kind=mutes')).data).toEqual([]);
  });

  it('lifts a ban on every server’s game and refuses to lift it twice', async () => {
    const player = strangerId();
    await ban(a, player, 'griefing');
    await eventually(() => banned(b, player));
    const [row] = (await list(b, `platform_id=${player}`)).data;
    const lift = await admin(b, `/admin/v1/group/sanctions/${row?.id}/lift`, 'POST');
    expect(lift.status, lift.text).toBe(200);
    expect(lift.json).toMatchObject({
      published: { action: 'unban', platform_id: player },
      applied_here: true,
    });
    expect(await banned(b, player)).toBe(false);
    await eventually(async () => !(await banned(a, player)));
    const rows = (await list(a, `platform_id=${player}`)).data;
    expect(rows.map((r) => [r.action, r.origin.name])).toEqual([
      ['unban', 'B'],
      ['ban', 'A'],
    ]);
    const again = await admin(b, `/admin/v1/group/sanctions/${row?.id}/lift`, 'POST');
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      error: { code: 'conflict', details: { superseded_by: rows[0]?.id } },
    });
    const ofUnban = await admin(b, `/admin/v1/group/sanctions/${rows[0]?.id}/lift`, 'POST');
    expect(ofUnban.status).toBe(409);
  });

  it('answers 404 for a sanction the group does not have', async () => {
    const answer = await admin(a, '/admin/v1/group/sanctions/999999/lift', 'POST');
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: { code: 'not_found', details: { id: '999999' } } });
  });

  it('records group.sanction.applied on the server whose game applies a sanction', async () => {
    const player = strangerId();
    await ban(a, player, 'wallhack');
    const event = await groupEvent(b, 'group.sanction.applied', player);
    expect(event).toMatchObject({
      action: 'ban',
      platform_id: player,
      reason: 'wallhack',
      origin: { server_id: a.daemon.group?.serverId, name: 'A', actor: { source: 'api' } },
    });
    expect(event['lag_ms']).toBeGreaterThanOrEqual(0);
    // The origin server applied nothing from the group.
    expect(await eventsOf(a, 'group.sanction.applied', player)).toEqual([]);
  });

  it('records group.sanction.failed when the game refuses a sanction from the group', async () => {
    const player = strangerId();
    b.sim?.faults.add({
      op: 'players.ban',
      kind: 'error',
      code: 'invalid',
      message: 'no such realm',
      times: 1,
    });
    await ban(a, player, 'spam');
    const event = await groupEvent(b, 'group.sanction.failed', player);
    expect(event).toMatchObject({
      action: 'ban',
      platform_id: player,
      error: expect.stringContaining('no such realm'),
    });
    expect(await banned(b, player)).toBe(false);
  });

  it('lists the sanctions its game refused on GET /admin/v1/group/failures, newest first, page by page', async () => {
    const before = (await failures(b, 'limit=1')).total;
    const [first, second] = [strangerId(), strangerId()];
    b.sim?.faults.add({
      op: 'players.ban',
      kind: 'error',
      code: 'invalid',
      message: 'banned elsewhere',
      times: 2,
    });
    await ban(a, first, 'first');
    await groupEvent(b, 'group.sanction.failed', first);
    await ban(a, second, 'second');
    await groupEvent(b, 'group.sanction.failed', second);
    const page1 = await failures(b, 'limit=1');
    expect(page1.total).toBe(before + 2);
    expect(page1.data).toEqual([
      {
        id: expect.any(String),
        action: 'ban',
        platform_id: second,
        origin_server: a.daemon.group?.serverId,
        error: expect.stringContaining('banned elsewhere'),
        at: expect.any(String),
      },
    ]);
    expect(page1.has_more).toBe(true);
    const page2 = await failures(b, `limit=1&cursor=${page1.next_cursor}`);
    expect(page2.data.map((row) => row.platform_id)).toEqual([first]);
    // The origin's game refused nothing, and its list says so.
    expect((await failures(a, 'limit=200')).data.map((row) => row.platform_id)).not.toContain(first);
    const forged = await admin(b, '/admin/v1/group/failures?cursor=not-a-cursor');
    expect(forged.status).toBe(400);
  });

  it('counts the rows a NOTIFY payload carried as received by notice, on the server that applies them', async () => {
    const player = strangerId();
    const before = await receivedOf(b);
    await ban(a, player, 'notice');
    await groupEvent(b, 'group.sanction.applied', player);
    const after = await receivedOf(b);
    expect(after.notice).toBeGreaterThan(before.notice);
  });

  it('counts rows read at a gap (a NOTIFY without a payload, as an older modgate sends) as received by query', async () => {
    const player = strangerId();
    const before = await receivedOf(b);
    await publishElsewhere(cluster, 'group_sanctions', {
      action: 'ban',
      platform_id: player,
      origin: 'srv_older',
      actor: 'older',
      reason: 'made by an older modgate',
    });
    await groupEvent(b, 'group.sanction.applied', player);
    const after = await receivedOf(b);
    expect(after.query).toBeGreaterThan(before.query);
    expect(after.notice).toBe(before.notice);
  });

  it('shows each server’s pending sanctions, the propagation lag and the database’s state on /metrics', async () => {
    const player = strangerId();
    await ban(a, player, 'metrics');
    await groupEvent(b, 'group.sanction.applied', player);
    const text = await metricsOf(b);
    expect(text).toMatch(/^modgate_group_database_connected 1$/m);
    expect(text).toMatch(/^modgate_group_database_errors_total 0$/m);
    expect(text).toMatch(/^modgate_group_rows_received_total\{via="notice"\} \d+$/m);
    expect(text).toMatch(/^modgate_group_rows_received_total\{via="query"\} \d+$/m);
    const id = b.daemon.group?.serverId as string;
    expect(text).toMatch(new RegExp(`^modgate_group_pending\\{server_id="${id}",server_name="B"\\} 0$`, 'm'));
    const count = /^modgate_group_propagation_lag_seconds_count (\d+)$/m.exec(text);
    expect(Number(count?.[1])).toBeGreaterThan(0);
  });
});

/** `modgate_group_rows_received_total` by `via`, as /metrics shows it now. */
async function receivedOf(stack: Stack): Promise<{ notice: number; query: number }> {
  const text = await metricsOf(stack);
  const of = (via: string) =>
    Number(new RegExp(`^modgate_group_rows_received_total\\{via="${via}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { notice: of('notice'), query: of('query') };
}

interface Failures {
  data: {
    id: string;
    action: string;
    platform_id: string;
    origin_server: string;
    error: string;
    at: string;
  }[];
  has_more: boolean;
  next_cursor: string | null;
  total: number;
}

async function failures(stack: Stack, query: string): Promise<Failures> {
  const answer = await admin(stack, `/admin/v1/group/failures?${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Failures;
}

async function metricsOf(stack: Stack): Promise<string> {
  const answer = await fetch(`http://${formatHostPort(stack.daemon.metricsAddress!)}/metrics`);
  expect(answer.status).toBe(200);
  return answer.text();
}

async function eventsOf(stack: Stack, type: string, player: string): Promise<Record<string, unknown>[]> {
  const answer = await stack.call(`/v1/events?after=0&types=${type}&limit=1000`);
  expect(answer.status).toBe(200);
  const page = answer.json as { data: { data: Record<string, unknown> }[] };
  return page.data.map((event) => event.data).filter((data) => data['platform_id'] === player);
}

async function groupEvent(stack: Stack, type: string, player: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await eventually(async () => (found = (await eventsOf(stack, type, player))[0]) !== undefined);
  return found as Record<string, unknown>;
}
