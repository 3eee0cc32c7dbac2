import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROUTES } from '../../../daemon/routes/index.ts';
import type { Vehicle, World } from '../../../mod-sim/world/index.ts';
import { eventually, startStack, type Stack } from '../../../harness/stack.ts';

const UNLIMITED = { limit: 1_000_000, windowSec: 60 };
const READERS = 25;

/**
 * The read cache coalesces on the real stack: the simulator consults its fault plan once per op
 * it answers, so counting `faults.take` counts what reaches the game side. A short delay keeps
 * the first op in flight while the other readers arrive.
 */
describe('the asset read cache', () => {
  let stack: Stack;
  let world: World;
  let opsSeen: (op: string) => number;

  beforeAll(async () => {
    stack = await startStack({
      daemon: {
        pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED },
        // The 1,000 readers below are 1,000 connections from one loopback address.
        http: { maxConnectionsPerAddress: 2_000 },
      },
    });
    const sim = stack.sim as NonNullable<Stack['sim']>;
    world = sim.world;
    const take = vi.spyOn(sim.faults, 'take');
    opsSeen = (op) => take.mock.calls.filter(([name]) => name === op).length;
    sim.faults.add({ op: '*', kind: 'delay', ms: 50 });
  });
  afterAll(() => stack.close());

  const many = (path: string, headers: Record<string, string> = {}) =>
    Promise.all(Array.from({ length: READERS }, () => stack.call(path, { headers })));

  it.each([
    ['vehicles.list', '/v1/vehicles?limit=50'],
    ['squads.summary', '/v1/squads/1/summary'],
    ['containers.types', '/v1/containers/types'],
    ['bases.list', '/v1/bases?min_health=0.5&limit=20'],
  ])('sends %s to the game side once for %s concurrent identical reads', async (op, path) => {
    const before = opsSeen(op);
    const responses = await many(path);
    expect(responses.every((res) => res.status === 200)).toBe(true);
    expect(new Set(responses.map((res) => res.headers['etag'])).size).toBe(1);
    expect(opsSeen(op) - before).toBe(1);
    await many(path);
    expect(opsSeen(op) - before).toBe(1);
  });

  it('sends vehicles.list to the game side at most once per cache window for 1,000 concurrent reads over real sockets', async () => {
    const path = '/v1/vehicles?limit=49';
    const route = ROUTES.find((r) => r.operationId === 'listVehicles');
    if (route?.cache.kind !== 'private') throw new Error('listVehicles is a cached read');
    const before = opsSeen('vehicles.list');
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 1_000 }, () =>
        fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${stack.key}` } }).then(
          async (res) => [res.status, res.headers.get('etag'), await res.text()] as const,
        ),
      ),
    );
    const windows = Math.ceil((Date.now() - started) / (route.cache.maxAgeSec * 1000));
    expect(statuses.every(([status]) => status === 200)).toBe(true);
    expect(new Set(statuses.map(([, etag]) => etag)).size).toBeLessThanOrEqual(windows);
    // The readers take longer than one window only on a very slow machine; one op is the rule.
    expect(opsSeen('vehicles.list') - before).toBeGreaterThanOrEqual(1);
    expect(opsSeen('vehicles.list') - before).toBeLessThanOrEqual(windows);
  });

  it('shares one op between the same read with its query parameters in another order', async () => {
    const before = opsSeen('vehicles.list');
    await Promise.all([
      stack.call('/v1/vehicles?is_locked=true&is_functional=false'),
      stack.call('/v1/vehicles?is_functional=false&is_locked=true'),
    ]);
    expect(opsSeen('vehicles.list') - before).toBe(1);
  });

  it('shares a cached first page across API keys, each with its own cursor', async () => {
    const { key } = await stack.data.createKey('--name', 'second-reader', '--scopes', 'vehicles:read');
    const other = { authorization: `Bearer ${key}` };
    await eventually(async () => (await stack.call('/v1/vehicles/types', { headers: other })).status === 200);
    const first = await stack.call('/v1/vehicles?is_locked=true&limit=10');
    const before = opsSeen('vehicles.list');
    const second = await stack.call('/v1/vehicles?is_locked=true&limit=10', { headers: other });
    expect(second.status).toBe(200);
    expect(opsSeen('vehicles.list') - before).toBe(0);
    const [a, b] = [first.json, second.json] as Array<{ data: unknown[]; next_cursor: string }>;
    expect(b?.data).toEqual(a?.data);
    expect(b?.next_cursor).not.toBe(a?.next_cursor);
  });

  it('sends distinct reads separately', async () => {
    const ids = world.assets.vehicles
      .values()
      .slice(0, 3)
      .map((v) => v.entity_id);
    const before = opsSeen('vehicles.get');
    await Promise.all(
      ids.flatMap((id) => [stack.call(`/v1/vehicles/${id}`), stack.call(`/v1/vehicles/${id}`)]),
    );
    expect(opsSeen('vehicles.get') - before).toBe(ids.length);
  });

  it('drops cached asset reads when a player write changes an owner', async () => {
    const vehicle = world.assets.vehicles.values().find((v) => v.owner.social_id === null) as Vehicle;
    const socialId = '111122223333444455';
    expect(world.players.bySocialId(socialId)).toBeUndefined();
    const path = `/v1/vehicles/${vehicle.entity_id}`;
    const owner = async (url: string) =>
      ((await stack.call(url)).json as { owner: { social_id: unknown } }).owner;
    expect((await owner(path)).social_id).toBeNull();
    const link = await stack.call(`/v1/players/${vehicle.owner.platform_id}/social`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ social_id: socialId }),
    });
    expect(link.status).toBe(200);
    expect((await owner(path)).social_id).toBe(socialId);
    const owned = (await stack.call(`/v1/vehicles?owner_social_id=${socialId}`)).json as { data: Vehicle[] };
    expect(owned.data.map((v) => v.entity_id)).toContain(vehicle.entity_id);
  });
});
