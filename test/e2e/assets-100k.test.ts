import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '../../daemon/http/cursor.ts';
import { createWorld, DAY, type Squad, type World } from '../../mod-sim/world/index.ts';
import { parseSqlDateTime } from '../../mod-sim/world/time.ts';
import { startStack, type Stack } from '../../harness/stack.ts';

type Row = Record<string, unknown>;
type Page = { data: Row[]; has_more: boolean; next_cursor: string | null; total: number };

const UNLIMITED = { limit: 1_000_000, windowSec: 60 };

/**
 * The `--players 100000` world behind a real daemon: filtered lists and deep pages answer what a
 * brute-force pass over the world says they should. Results only; tests never assert on time.
 */
describe('asset reads on a 100,000-player world', () => {
  let stack: Stack;
  let world: World;

  beforeAll(async () => {
    world = createWorld({ players: 100_000 });
    stack = await startStack({
      daemon: { pipeline: { keyRateLimit: UNLIMITED, edgeRateLimit: UNLIMITED } },
      sim: { world },
    });
  }, 120_000);
  afterAll(() => stack?.close());

  const page = async (path: string): Promise<Page> => {
    const res = await stack.call(path);
    expect(res.status, path).toBe(200);
    return res.json as Page;
  };
  /** A cursor exactly as the daemon issues it for this key, route and filters. */
  const cursorAt = (route: string, filters: Record<string, unknown>, position: string) => {
    const keyId = stack.key.split('_')[2] as string;
    const codec = new CursorCodec(stack.daemon.snapshot.current().identity.daemonSecretKey);
    return encodeURIComponent(codec.encode({ keyId, route, filters }, position));
  };

  it('answers a deep vehicle page with the vehicles right after its position', async () => {
    const vehicles = world.assets.vehicles;
    expect(vehicles.length).toBeGreaterThan(50_000);
    const first = await page('/v1/vehicles?limit=100');
    expect(first.total).toBe(vehicles.length);
    expect(first.next_cursor).toBe(decodeURIComponent(cursorAt('listVehicles', {}, vehicles.keyAt(99))));
    for (const at of [60_000, vehicles.length - 40]) {
      const deep = await page(
        `/v1/vehicles?limit=100&cursor=${cursorAt('listVehicles', {}, vehicles.keyAt(at))}`,
      );
      const expected = vehicles.values().slice(at + 1, at + 101);
      expect(deep.data.map((v) => v['entity_id'])).toEqual(expected.map((v) => v.entity_id));
      expect(deep.has_more).toBe(at + 101 < vehicles.length);
      expect(deep.total).toBe(vehicles.length);
    }
  });

  it('walks every base page by page, each exactly once in flag order', async () => {
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/v1/bases?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const next = await page(path);
      seen.push(...next.data.map((b) => b['flag_id']));
      cursor = next.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(world.assets.bases.values().map((b) => b.flag_id));
  });

  it('filters vehicles by exact owner name across every owner so named', async () => {
    const name = world.assets.vehicles.itemAt(30_000).owner.name;
    const expected = world.assets.vehicles.values().filter((v) => v.owner.name === name);
    expect(expected.length).toBeGreaterThan(10);
    const first = await page(`/v1/vehicles?owner_name=${encodeURIComponent(name)}&limit=10`);
    expect(first.total).toBe(expected.length);
    expect(first.data.map((v) => v['entity_id'])).toEqual(expected.slice(0, 10).map((v) => v.entity_id));
    const second = await page(
      `/v1/vehicles?owner_name=${encodeURIComponent(name)}&limit=10&cursor=${encodeURIComponent(first.next_cursor as string)}`,
    );
    expect(second.data.map((v) => v['entity_id'])).toEqual(expected.slice(10, 20).map((v) => v.entity_id));
  });

  it('filters bases by health and size, and containers by base and flags', async () => {
    const bases = world.assets.bases.values().filter((b) => b.avg_health >= 0.9 && b.element_count <= 100);
    const basePage = await page('/v1/bases?min_health=0.9&max_elements=100&limit=100');
    expect(basePage.total).toBe(bases.length);
    expect(basePage.data.map((b) => b['flag_id'])).toEqual(bases.slice(0, 100).map((b) => b.flag_id));
    const base = world.assets.bases.itemAt(15_000);
    const stored = world.assets.containers.values().filter((c) => c.base_id === base.base_id && !c.is_buried);
    const containerPage = await page(`/v1/containers?base_id=${base.base_id}&is_buried=false&limit=100`);
    expect(containerPage.data.map((c) => c['entity_id'])).toEqual(stored.map((c) => c.entity_id));
  });

  it('filters squads by size and recent member activity', async () => {
    const since = world.clock() - 3 * DAY;
    const recent = (squad: Squad) =>
      squad.members.some(({ player }) => parseSqlDateTime(player.last_seen) >= since);
    const expected = world.squads.values().filter((s) => s.members.length >= 10 && recent(s));
    const result = await page('/v1/squads?min_members=10&active_within_days=3&limit=100');
    expect(result.total).toBe(expected.length);
    expect(result.data.map((s) => s['id'])).toEqual(expected.slice(0, 100).map((s) => s.id));
  });

  it('searches container names case-insensitively', async () => {
    const expected = world.assets.containers
      .values()
      .filter((c) =>
        [c.display_name, c.custom_name, c.base_name ?? '', c.owner.name].some((f) => /meds/i.test(f)),
      );
    const result = await page('/v1/containers?search=MEDS&limit=100');
    expect(result.total).toBe(expected.length);
    expect(result.data.map((c) => c['entity_id'])).toEqual(expected.slice(0, 100).map((c) => c.entity_id));
  });
});
