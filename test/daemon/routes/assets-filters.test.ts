import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container, Vehicle, World } from '../../../mod-sim/world/index.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';

type Row = Record<string, unknown>;
type Page = { data: Row[]; has_more: boolean; next_cursor: string | null; total?: number };

const UNLIMITED = { limit: 1_000_000, windowSec: 60 };

function errorOf(json: unknown) {
  return (json as { error: { code: string; details?: Record<string, unknown> } }).error;
}

/**
 * The list filters of the squad, base, vehicle and container routes (docs/assets.md#filters:
 * search versus structured filters, platform versus social ids, digits, exact names, bounds).
 */
describe('asset list filters', () => {
  let stack: Stack;
  let world: World;
  let vehicle: Vehicle;
  let container: Container;

  const get = (path: string) => stack.call(path);

  beforeAll(async () => {
    stack = await startStack({
      daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED } },
      sim: { players: 1_000 },
    });
    world = (stack.sim as { world: World }).world;
    vehicle = world.assets.vehicles.itemAt(10);
    container = world.assets.containers.values().find((c) => c.base_id !== null) as Container;
  });
  afterAll(() => stack.close());

  it.each([
    '/v1/squads?search=x&min_members=2',
    '/v1/squads?search=x&leader_platform_id=76561190000000000',
    '/v1/bases?search=x&owner_name=Anna%20Novak',
    '/v1/bases?search=x&min_health=0.5',
    '/v1/vehicles?search=x&alias=Rager',
    '/v1/vehicles?search=x&is_locked=true',
    '/v1/containers?search=x&base_id=50001',
    '/v1/containers?search=x&is_buried=false',
  ])('refuses search combined with a structured filter: %s', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
  });

  it.each([
    '/v1/squads?leader_platform_id=76561190000000000&leader_social_id=123456789012345678',
    '/v1/bases?owner_platform_id=76561190000000000&owner_social_id=123456789012345678',
    '/v1/vehicles?owner_platform_id=76561190000000000&owner_social_id=123456789012345678',
    '/v1/containers?owner_platform_id=76561190000000000&owner_social_id=123456789012345678',
  ])('refuses a platform-id filter with its social-id twin: %s', async (path) => {
    expect((await get(path)).status).toBe(400);
  });

  it.each([
    '/v1/containers?owner_platform_id=7656119abc0000000',
    '/v1/containers?owner_social_id=12345678901234567x',
    '/v1/containers?base_id=50x01',
    '/v1/containers?base_id=-5',
    '/v1/vehicles?owner_platform_id=abc',
    '/v1/bases?owner_social_id=%2B12345678901234567',
    '/v1/squads?leader_platform_id=1.5',
  ])('refuses a non-digit id filter: %s', async (path) => {
    expect((await get(path)).status).toBe(400);
  });

  it.each(['1.5', '-0.1', '1e-1', '.5', '0.5.5', 'abc', '01', ' 0.5', '1.0000001'])(
    'refuses health bound %s with 400',
    async (value) => {
      const v = encodeURIComponent(value);
      expect((await get(`/v1/bases?min_health=${v}`)).status).toBe(400);
      expect((await get(`/v1/bases?max_health=${v}`)).status).toBe(400);
    },
  );

  it('accepts health bounds 0, 0.0 to 1, 1.0, inclusive, and refuses min above max', async () => {
    const all = (await get('/v1/bases?min_health=0&max_health=1.0')).json as Page;
    expect(all.total).toBe(world.assets.bases.length);
    const some = (await get('/v1/bases?min_health=0.5&max_health=0.75')).json as Page;
    const expected = world.assets.bases.values().filter((b) => b.avg_health >= 0.5 && b.avg_health <= 0.75);
    expect(some.total).toBe(expected.length);
    expect((await get('/v1/bases?min_health=0.8&max_health=0.2')).status).toBe(400);
    expect((await get('/v1/bases?min_elements=500&max_elements=100')).status).toBe(400);
  });

  it.each(['0', '-1', '1.5', 'abc', '1000000'])('refuses active_within_days=%s with 400', async (days) => {
    expect((await get(`/v1/squads?active_within_days=${days}`)).status).toBe(400);
  });

  it('filters squads by recent activity and member counts', async () => {
    expect(((await get('/v1/squads?active_within_days=1000')).json as Page).total).toBe(world.squads.length);
    const page = (await get('/v1/squads?min_members=5&max_members=5&limit=100')).json as Page;
    expect(page.data.every((s) => s['member_count'] === 5)).toBe(true);
    expect(page.total).toBe(world.squads.values().filter((s) => s.members.length === 5).length);
  });

  it.each([
    '/v1/squads?leader_social_id=99999999999999999999',
    '/v1/bases?owner_social_id=99999999999999999999',
    '/v1/vehicles?owner_social_id=99999999999999999999',
    '/v1/containers?owner_social_id=99999999999999999999',
  ])('answers an empty page, never 404, for a social id linked to nobody: %s', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [], has_more: false, next_cursor: null, total: 0 });
  });

  it('matches owner_name and alias exactly, never as a substring', async () => {
    const name = vehicle.owner.name;
    const owned = (await get(`/v1/vehicles?owner_name=${encodeURIComponent(name)}&limit=100`)).json as Page;
    expect(owned.data.length).toBeGreaterThan(0);
    expect(owned.data.every((v) => (v['owner'] as Row)['name'] === name)).toBe(true);
    const first = name.split(' ')[0] as string;
    expect(((await get(`/v1/vehicles?owner_name=${first}`)).json as Page).total).toBe(0);
    expect(((await get('/v1/vehicles?alias=Rage')).json as Page).total).toBe(0);
    const rager = (await get('/v1/vehicles?alias=Rager&limit=100')).json as Page;
    expect(rager.total).toBe(world.assets.vehicles.values().filter((v) => v.display_name === 'Rager').length);
  });

  it('narrows containers to one base and to its owner by social id', async () => {
    const page = (await get(`/v1/containers?base_id=${container.base_id}&limit=100`)).json as Page;
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((c) => c['base_id'] === container.base_id)).toBe(true);
    const owner = world.players.byProfileId(container.owner.profile_id);
    if (owner?.social_id) {
      const mine = (await get(`/v1/containers?owner_social_id=${owner.social_id}&limit=100`)).json as Page;
      expect(mine.data.map((c) => c['entity_id'])).toContain(container.entity_id);
    }
  });
});
