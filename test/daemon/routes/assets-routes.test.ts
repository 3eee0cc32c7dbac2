import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Squad, Vehicle, World } from '../../../mod-sim/world/index.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

type Row = Record<string, unknown>;
type Page = { data: Row[]; has_more: boolean; next_cursor: string | null; total?: number };

const UNLIMITED = { limit: 1_000_000, windowSec: 60 };

function errorOf(json: unknown) {
  return (json as { error: { code: string; details?: Record<string, unknown> } }).error;
}

/** The decimal string one above (+1) or below (-1) `id`, without ever making it a number. */
function step(id: string, by: 1 | -1): string {
  const [from, to] = by === 1 ? ['9', '0'] : ['0', '9'];
  const digits = id.split('');
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i] !== from) {
      digits[i] = String.fromCharCode((digits[i] as string).charCodeAt(0) + by);
      return by === 1 ? digits.join('') : digits.join('').replace(/^0+(?=[0-9])/, '');
    }
    digits[i] = to;
  }
  return `1${digits.join('')}`;
}

/** An id next to `id` that a JS number cannot tell from it (there is one past 2^54). */
function twinOf(id: string): string {
  const twin = [step(id, 1), step(id, -1)].find((other) => Number(other) === Number(id));
  if (twin === undefined) throw new Error(`${id} has no twin`);
  return twin;
}

describe('squad, base, vehicle and container routes', () => {
  let stack: Stack;
  let world: World;
  let vehicle: Vehicle;
  let container: Container;
  let squad: Squad;
  let flagId: number;

  const get = (path: string, headers: Record<string, string> = {}) => stack.call(path, { headers });
  /** Every row of a list, following next_cursor. */
  const walk = async (path: string): Promise<Row[]> => {
    const rows: Row[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const url: string = cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`;
      const res = await get(url);
      expect(res.status, url).toBe(200);
      const page = res.json as Page;
      rows.push(...page.data);
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return rows;
  };

  beforeAll(async () => {
    stack = await startStack({
      daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED } },
      sim: { players: 1_000 },
    });
    world = (stack.sim as { world: World }).world;
    vehicle = world.assets.vehicles.values().find((v) => v.entity_id.length >= 18) as Vehicle;
    container = world.assets.containers.values().find((c) => c.base_id !== null) as Container;
    squad = world.squads.values().find((s) => s.members.length >= 5) ?? world.squads.itemAt(0);
    flagId = world.assets.bases.itemAt(0).flag_id;
  });
  afterAll(() => stack.close());

  const endpoints = (): Array<[string, number]> => [
    ['/v1/squads', 10],
    [`/v1/squads/${squad.id}`, 10],
    [`/v1/squads/${squad.id}/members`, 10],
    [`/v1/squads/${squad.id}/summary`, 10],
    [`/v1/squads/${squad.id}/bases`, 10],
    [`/v1/squads/${squad.id}/vehicles`, 10],
    [`/v1/squads/${squad.id}/containers`, 10],
    ['/v1/bases', 15],
    [`/v1/bases/${flagId}`, 15],
    ['/v1/vehicles', 10],
    [`/v1/vehicles/${vehicle.entity_id}`, 10],
    [`/v1/vehicles/${vehicle.entity_id}/inventory`, 10],
    ['/v1/vehicles/types', 15],
    ['/v1/containers', 15],
    [`/v1/containers/${container.entity_id}`, 15],
    [`/v1/containers/${container.entity_id}/inventory`, 15],
    ['/v1/containers/types', 15],
  ];

  describe('caching', () => {
    it('sends a strong ETag and private max-age on all seventeen reads, and 304 on If-None-Match', async () => {
      const list = endpoints();
      expect(list).toHaveLength(17);
      for (const [path, maxAge] of list) {
        const res = await get(path);
        expect(res.status, path).toBe(200);
        expect(res.headers['cache-control'], path).toBe(`private, max-age=${maxAge}`);
        const etag = res.headers['etag'] as string;
        expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const again = await get(path, { 'if-none-match': etag });
        expect(again.status, path).toBe(304);
        expect(again.body, path).toBeNull();
        expect((await get(path, { 'if-none-match': `W/${etag}` })).status, path).toBe(304);
        expect((await get(path, { 'if-none-match': '"other"' })).status, path).toBe(200);
      }
    });
  });

  describe('paths', () => {
    it('prefers /v1/vehicles/types and /v1/containers/types over the {id} routes', async () => {
      for (const kind of ['vehicles', 'containers']) {
        const res = await get(`/v1/${kind}/types`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.json as Row)).toEqual(['types']);
      }
    });

    it.each(['0', '007', '-1', 'abc', '1.5', '1e3', '123456789012345678901', '%20'])(
      'refuses {id}=%s with 400 on every id route',
      async (id) => {
        for (const path of [
          `/v1/squads/${id}`,
          `/v1/squads/${id}/members`,
          `/v1/squads/${id}/summary`,
          `/v1/squads/${id}/vehicles`,
          `/v1/bases/${id}`,
          `/v1/vehicles/${id}`,
          `/v1/vehicles/${id}/inventory`,
          `/v1/containers/${id}`,
          `/v1/containers/${id}/inventory`,
        ]) {
          const res = await get(path);
          expect(res.status, path).toBe(400);
          expect(errorOf(res.json).code).toBe('validation_error');
        }
      },
    );

    it.each([
      '/v1/squads/999999',
      '/v1/squads/999999/members',
      '/v1/squads/999999/summary',
      '/v1/squads/999999/bases',
      '/v1/bases/1',
      '/v1/vehicles/1',
      '/v1/vehicles/1/inventory',
      '/v1/containers/1',
      '/v1/containers/1/inventory',
    ])('answers 404 not_found for the unknown %s', async (path) => {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(errorOf(res.json).code).toBe('not_found');
    });
  });

  describe('entity ids above 2^53', () => {
    it('returns the vehicle byte for byte through the HTTP listener, and never its neighbour', async () => {
      const auth = { authorization: `Bearer ${stack.key}` };
      const res = await fetch(`${stack.baseUrl}/v1/vehicles/${vehicle.entity_id}`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(JSON.stringify(vehicle));
      const neighbour = twinOf(vehicle.entity_id);
      const miss = await fetch(`${stack.baseUrl}/v1/vehicles/${neighbour}`, { headers: auth });
      expect(miss.status).toBe(world.assets.vehicles.has(neighbour) ? 200 : 404);
    });

    it('lists every vehicle in decimal order with ids as exact strings', async () => {
      const rows = await walk('/v1/vehicles?limit=100');
      expect(rows.map((v) => v['entity_id'])).toEqual(world.assets.vehicles.values().map((v) => v.entity_id));
      const page = await get('/v1/vehicles?limit=100');
      expect(page.body?.toString()).toContain(`"entity_id":"${world.assets.vehicles.itemAt(0).entity_id}"`);
    });
  });

  describe('page sizes and cursors', () => {
    it.each(['/v1/squads', '/v1/bases', '/v1/vehicles', '/v1/containers'])(
      'takes limit 10 to 100 on %s, default 50',
      async (path) => {
        expect(((await get(path)).json as Page).data).toHaveLength(50);
        expect(((await get(`${path}?limit=10`)).json as Page).data).toHaveLength(10);
        for (const limit of ['9', '101', '0', '1e1', '']) {
          expect((await get(`${path}?limit=${limit}`)).status, limit).toBe(400);
        }
      },
    );

    it('takes limit 1 to 100 on the squad asset lists', async () => {
      const big = world.squads.values().find((s) => s.members.length >= 8) as Squad;
      for (const kind of ['bases', 'vehicles', 'containers']) {
        const path = `/v1/squads/${big.id}/${kind}`;
        expect((await get(`${path}?limit=1`)).status).toBe(200);
        expect((await get(`${path}?limit=0`)).status).toBe(400);
        expect((await get(`${path}?limit=101`)).status).toBe(400);
        expect(Object.keys((await get(path)).json as Row)).toEqual(['data', 'has_more', 'next_cursor']);
      }
    });

    it('refuses a cursor carried to other filters or another list', async () => {
      const page = (await get('/v1/vehicles?limit=10&is_locked=true')).json as Page;
      const cursor = encodeURIComponent(page.next_cursor as string);
      expect((await get(`/v1/vehicles?limit=10&is_locked=true&cursor=${cursor}`)).status).toBe(200);
      expect((await get(`/v1/vehicles?limit=10&is_locked=false&cursor=${cursor}`)).status).toBe(400);
      expect((await get(`/v1/containers?limit=10&is_locked=true&cursor=${cursor}`)).status).toBe(400);
    });
  });

  describe('squads', () => {
    it('adds the summary up from /members and the squad asset lists', async () => {
      for (const one of world.squads.values().slice(0, 15)) {
        const members = ((await get(`/v1/squads/${one.id}/members`)).json as Page).data;
        const summary = (await get(`/v1/squads/${one.id}/summary`)).json as Row;
        const vehicles = await walk(`/v1/squads/${one.id}/vehicles?limit=3`);
        const containers = await walk(`/v1/squads/${one.id}/containers?limit=3`);
        const sum = (field: string) => members.reduce((total, m) => total + (m[field] as number), 0);
        expect(summary).toEqual({
          squad_id: one.id,
          total_kills: sum('kills'),
          total_deaths: sum('deaths'),
          total_cash: sum('cash'),
          total_bank_money: sum('bank_money'),
          total_gold: sum('gold'),
          total_fame: expect.closeTo(sum('fame_points'), 2),
          total_containers: containers.length,
          total_vehicles: vehicles.length,
          member_count: members.length,
        });
        const profiles = new Set(members.map((m) => m['profile_id']));
        expect(vehicles.every((v) => profiles.has((v['owner'] as Row)['profile_id']))).toBe(true);
      }
    });

    it('lists the leader as the squad row’s leader and rank 4 in the members', async () => {
      const row = (await get(`/v1/squads/${squad.id}`)).json as Row;
      const members = ((await get(`/v1/squads/${squad.id}/members`)).json as Page).data;
      const leader = members.find((m) => m['rank'] === 4) as Row;
      expect((row['leader'] as Row)['platform_id']).toBe(leader['platform_id']);
      expect(row['member_count']).toBe(members.length);
      const led = (await get(`/v1/squads?leader_platform_id=${leader['platform_id'] as string}`))
        .json as Page;
      expect(led.data).toEqual([row]);
    });
  });

  describe('scopes', () => {
    it('needs the domain’s own read scope', async () => {
      const { key } = await stack.data.createKey('--name', 'vehicles-only', '--scopes', 'vehicles:read');
      const as = (path: string) => stack.call(path, { headers: { authorization: `Bearer ${key}` } });
      await eventually(async () => (await as('/v1/vehicles/types')).status === 200);
      for (const [path, scope] of [
        ['/v1/bases', 'bases:read'],
        ['/v1/containers/types', 'containers:read'],
        [`/v1/squads/${squad.id}/vehicles`, 'squads:read'],
      ] as const) {
        const res = await as(path);
        expect(res.status).toBe(403);
        expect(errorOf(res.json)).toMatchObject({
          code: 'insufficient_scope',
          details: { missing_scope: scope },
        });
      }
    });
  });
});
