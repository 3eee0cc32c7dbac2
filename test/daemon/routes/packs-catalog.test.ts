import { beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../mod-sim/world/index.ts';
import { suiteStack } from '../../support/suite.ts';

type Page<T = Record<string, unknown>> = {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total: number;
};
const PACK_KEYS = [
  'id',
  'name',
  'display_name',
  'description',
  'category',
  'price',
  'enabled',
  'shop_enabled',
  'buy_limit',
  'image_url',
  'created_at',
  'updated_at',
];
const DELIVERY_KEYS = [
  'id',
  'pack',
  'player',
  'quantity',
  'total_price',
  'status',
  'source',
  'error_message',
  'delivered_at',
];

function errorOf(json: unknown) {
  return (json as { error: { code: string; details?: Record<string, unknown> } }).error;
}

describe('pack catalogue and delivery history reads', () => {
  const stack = suiteStack({ sim: { seed: 3 } });
  let packs: readonly Pack[];

  beforeAll(async () => {
    packs = stack.sim!.world.shop.packs.values();
  });

  describe('GET /v1/packs', () => {
    it('answers the collection with total, newest-configured first, every key present', async () => {
      const res = await stack.call('/v1/packs?limit=5');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      const page = res.json as Page;
      expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor', 'total']);
      expect(page.total).toBe(packs.length);
      expect(page.data.map((p) => p.id)).toEqual(packs.slice(0, 5).map((p) => p.id));
      for (const row of page.data) expect(Object.keys(row)).toEqual(PACK_KEYS);
      expect(page.data[0]).toEqual(packs[0]);
    });

    it('walks the catalogue with cursors, each pack once', async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await stack.call(`/v1/packs?limit=7${cursor === null ? '' : `&cursor=${cursor}`}`);
        const page = res.json as Page<{ id: number }>;
        seen.push(...page.data.map((p) => p.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(packs.map((p) => p.id));
    });

    it('filters by enabled and category_id, and searches names', async () => {
      const off = (await stack.call('/v1/packs?enabled=false')).json as Page<{ enabled: boolean }>;
      expect(off.total).toBe(packs.filter((p) => !p.enabled).length);
      expect(off.data.every((p) => !p.enabled)).toBe(true);
      const cat = (await stack.call('/v1/packs?category_id=3&enabled=true')).json as Page<Pack>;
      expect(cat.data.every((p) => p.category.id === 3 && p.enabled)).toBe(true);
      const found = (await stack.call('/v1/packs?search=raid')).json as Page<Pack>;
      expect(found.data.map((p) => p.name)).toEqual(
        packs.filter((p) => p.name.includes('raid')).map((p) => p.name),
      );
    });

    it.each([
      ['search with a structured filter', 'search=gold&enabled=true'],
      ['a limit of 0', 'limit=0'],
      ['a limit of 101', 'limit=101'],
      ['enabled other than true or false', 'enabled=yes'],
      ['a category id with a leading zero', 'category_id=02'],
      ['an unknown parameter', 'sort=price'],
    ])('refuses %s with 400', async (_what, query) => {
      const res = await stack.call(`/v1/packs?${query}`);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });
  });

  describe('GET /v1/packs/{id}', () => {
    it('answers one pack as a bare object', async () => {
      const pack = packs[3]!;
      const res = await stack.call(`/v1/packs/${pack.id}`);
      expect(res.status).toBe(200);
      expect(res.json).toEqual(pack);
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expect(errorOf((await stack.call('/v1/packs/999999')).json).code).toBe('not_found');
      for (const id of ['0', '01', '-1', 'abc', '1.5']) {
        expect((await stack.call(`/v1/packs/${id}`)).status, id).toBe(400);
      }
    });
  });

  describe('GET /v1/packs/deliveries', () => {
    it('is the static route, not /v1/packs/{id}: the history with total, newest first', async () => {
      const res = await stack.call('/v1/packs/deliveries?limit=3');
      expect(res.status).toBe(200);
      const page = res.json as Page<{ id: number }>;
      const history = stack.sim!.world.shop.deliveries;
      expect(page.total).toBe(history.length);
      expect(page.data.map((d) => d.id)).toEqual([0, 1, 2].map((i) => history.keyAt(i)));
      for (const row of page.data) expect(Object.keys(row)).toEqual(DELIVERY_KEYS);
    });

    it('filters by pack, source and status together', async () => {
      const history = stack.sim!.world.shop.deliveries.values();
      const sample = history.find((d) => d.source === 'shop' && d.status === 'completed')!;
      const query = `pack_id=${sample.pack.id}&source=shop&status=completed&limit=100`;
      const page = (await stack.call(`/v1/packs/deliveries?${query}`)).json as Page<(typeof history)[number]>;
      const expected = history.filter(
        (d) => d.pack.id === sample.pack.id && d.source === 'shop' && d.status === 'completed',
      );
      expect(page.total).toBe(expected.length);
      expect(page.data.map((d) => d.id)).toEqual(expected.slice(0, 100).map((d) => d.id));
    });

    it('filters by platform id or current social id; an unlinked social id is an empty page', async () => {
      const world = stack.sim!.world;
      const linked = world.players.list.values().find((p) => p.social_id !== null)!;
      const mine = world.shop.deliveries.values().filter((d) => d.player.platform_id === linked.platform_id);
      const byPlatform = (await stack.call(`/v1/packs/deliveries?platform_id=${linked.platform_id}`))
        .json as Page;
      const bySocial = (await stack.call(`/v1/packs/deliveries?social_id=${linked.social_id}`)).json as Page;
      expect(byPlatform.total).toBe(mine.length);
      expect(bySocial.total).toBe(mine.length);
      const nobody = await stack.call('/v1/packs/deliveries?social_id=99000000000000000001');
      expect(nobody.status).toBe(200);
      expect(nobody.json).toEqual({ data: [], has_more: false, next_cursor: null, total: 0 });
    });

    it('keeps rows of a deleted pack with both labels null', async () => {
      const world = stack.sim!.world;
      const pack = packs.find((p) => world.shop.deliveries.values().some((d) => d.pack.id === p.id))!;
      world.shop.deletePack(pack.id);
      const page = (await stack.call(`/v1/packs/deliveries?pack_id=${pack.id}&limit=5`)).json as Page<{
        pack: unknown;
      }>;
      expect(page.data.length).toBeGreaterThan(0);
      for (const row of page.data) expect(row.pack).toEqual({ id: pack.id, name: null, display_name: null });
      expect((await stack.call(`/v1/packs/${pack.id}`)).status).toBe(404);
    });

    it.each([
      ['both platform_id and social_id', 'platform_id=76561190000000001&social_id=112233445566778899'],
      ['an unknown status', 'status=lost'],
      ['a malformed platform id', 'platform_id=123'],
      ['a malformed source', 'source=Shop!'],
      ['a pack id of 0', 'pack_id=0'],
    ])('refuses %s with 400', async (_what, query) => {
      const res = await stack.call(`/v1/packs/deliveries?${query}`);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });
  });
});
