import { beforeAll, describe, expect, it } from 'vitest';
import { countItems, type Pack, type Player, type World } from '../../../mod-sim/world/index.ts';
import { suiteStack } from '../../support/suite.ts';

type Delivery = {
  pack: { id: number; name: string | null; display_name: string | null };
  player: { platform_id: string; social_id: string | null };
  quantity: number;
  delivered: boolean;
  status: string;
  purchase_id: number;
  error_message: string | null;
};
type Row = Omit<Delivery, 'delivered' | 'purchase_id'> & { id: number; source: string; total_price: number };
type Page<T> = { data: T[]; total: number };
type Item = { class: string; contents: Item[] };

const OWNER = { platform_id: '76561190000000042', social_id: '112233445566778899' };
const NEVER_JOINED = '76561189999999998';
const FREE_SOCIAL = '99000000000000000777';

function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string } }).error;
}

describe('POST /v1/packs/{id}/deliver', () => {
  const stack = suiteStack({ sim: { seed: 3 } });
  let world: World;
  let key: string;
  const bySlug = (slug: string): Pack => world.shop.packs.values().find((p) => p.name === slug)!;
  const pick = (test: (p: Player) => boolean, skip = 0) => world.players.list.values().filter(test)[skip]!;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    stack.call(path, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    });
  const deliveries = async (query: string) =>
    (await stack.call(`/v1/packs/deliveries?${query}`)).json as Page<Row>;

  beforeAll(async () => {
    world = stack.sim!.world;
    const flags = ['--owner-platform-id', OWNER.platform_id, '--owner-social-id', OWNER.social_id];
    key = (await stack.data.createKey('--name', 'shop-bot', ...flags)).key;
  });

  it('grants a pack for free and answers the spec’s shape', async () => {
    const player = pick((p) => p.online);
    const pack = bySlug('ak47-bundle');
    const coins = player.coins;
    const res = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id, quantity: 2 });
    expect(res.status).toBe(200);
    const body = res.json as Delivery;
    expect(Object.keys(body)).toEqual([
      'pack',
      'player',
      'quantity',
      'delivered',
      'status',
      'purchase_id',
      'error_message',
    ]);
    expect(body).toMatchObject({
      pack: { id: pack.id, name: pack.name, display_name: pack.display_name },
      player: { platform_id: player.platform_id, social_id: player.social_id },
      quantity: 2,
      delivered: true,
      status: 'completed',
      error_message: null,
    });
    expect(player.coins).toBe(coins);
    const rows = await deliveries(`platform_id=${player.platform_id}&limit=1`);
    expect(rows.data[0]).toMatchObject({ id: body.purchase_id, source: 'api', total_price: 0, quantity: 2 });
  });

  it('shows the delivered items in the player’s inventory at once, through the read cache', async () => {
    const player = pick((p) => p.online, 1);
    const path = `/v1/players/${player.platform_id}/inventory`;
    const before = ((await stack.call(path)).json as { items: Item[] }).items;
    await post(`/v1/packs/${bySlug('survival-kit').id}/deliver`, { platform_id: player.platform_id });
    const after = ((await stack.call(path)).json as { items: Item[] }).items;
    expect(countItems(after as never)).toBe(countItems(before as never) + 5);
    expect(after.filter((i) => i.class === 'Lighter').length).toBeGreaterThan(
      before.filter((i) => i.class === 'Lighter').length,
    );
  });

  it('moves gold and writes a ledger row of source pack attributed to the key owner', async () => {
    const player = pick((p) => !p.online);
    const pack = bySlug('gold-500');
    const gold = player.gold;
    const res = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id });
    expect((res.json as Delivery).status).toBe('completed');
    expect(player.gold).toBe(gold + 500);
    expect(world.ledger.entry(world.ledger.length - 1)).toMatchObject({
      player: { platform_id: player.platform_id },
      actor: OWNER,
      asset: 'gold',
      amount: 500,
      balance_after: gold + 500,
      source: 'pack',
      pack_name: pack.name,
    });
    const profile = (await stack.call(`/v1/players/${player.platform_id}`)).json as { gold: number };
    expect(profile.gold).toBe(gold + 500);
  });

  it('resolves a social id to the linked player', async () => {
    const player = pick((p) => p.social_id !== null);
    const res = await post(`/v1/packs/${bySlug('gold-500').id}/deliver`, { social_id: player.social_id });
    expect((res.json as Delivery).player).toEqual({
      platform_id: player.platform_id,
      social_id: player.social_id,
    });
  });

  it('answers 404 for a social id linked to nobody and for an unknown pack', async () => {
    const unlinked = await post(`/v1/packs/${bySlug('gold-500').id}/deliver`, { social_id: FREE_SOCIAL });
    expect(unlinked.status).toBe(404);
    expect(errorOf(unlinked.json).code).toBe('not_found');
    const unknown = await post('/v1/packs/999999/deliver', { platform_id: pick(() => true).platform_id });
    expect(unknown.status).toBe(404);
  });

  it('accepts a never-seen platform id and answers failed', async () => {
    const res = await post(`/v1/packs/${bySlug('gold-500').id}/deliver`, { platform_id: NEVER_JOINED });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      player: { platform_id: NEVER_JOINED, social_id: null },
      delivered: false,
      status: 'failed',
    });
  });

  it('answers partial when the inventory is full', async () => {
    const player = pick((p) => p.online, 2);
    const res = await post(`/v1/packs/${bySlug('ak47-bundle').id}/deliver`, {
      platform_id: player.platform_id,
      quantity: 25,
    });
    expect(res.json).toMatchObject({ status: 'partial', delivered: true });
    expect((res.json as Delivery).error_message).toMatch(/^Inventory full/);
  });

  it('answers ledger_failed when the game cannot write the ledger row (fault rule packs.ledger)', async () => {
    stack.sim!.faults.add({ op: 'packs.ledger', kind: 'error', code: 'internal', message: 'x', times: 1 });
    const res = await post(`/v1/packs/${bySlug('cash-50k').id}/deliver`, {
      platform_id: pick((p) => !p.online, 1).platform_id,
    });
    expect(res.json).toMatchObject({ status: 'ledger_failed', delivered: true });
  });

  it('delivers once for two requests with the same Idempotency-Key', async () => {
    const player = pick((p) => !p.online, 2);
    const pack = bySlug('gold-500');
    const gold = player.gold;
    const before = (await deliveries(`platform_id=${player.platform_id}&source=api`)).total;
    const headers = { 'idempotency-key': `deliver-${player.platform_id}` };
    const first = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id }, headers);
    const second = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id }, headers);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json).toEqual(first.json);
    const rows = await deliveries(`platform_id=${player.platform_id}&source=api`);
    expect(rows.total).toBe(before + 1);
    expect(rows.data[0]?.id).toBe((first.json as Delivery).purchase_id);
    expect(player.gold).toBe(gold + 500);
  });

  it('applies once when a retry after a lost answer carries the same key', async () => {
    const player = pick((p) => !p.online, 3);
    const pack = bySlug('gold-500');
    const gold = player.gold;
    const before = (await deliveries(`platform_id=${player.platform_id}&source=api`)).total;
    stack.sim!.faults.add({ op: 'packs.deliver', kind: 'drop', afterApply: true, times: 1 });
    const headers = { 'idempotency-key': `retry-${player.platform_id}` };
    const lost = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id }, headers);
    expect(lost.status).toBe(503);
    await stack.sim!.connected();
    const retry = await post(`/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id }, headers);
    expect(retry.status).toBe(200);
    expect(player.gold).toBe(gold + 500);
    expect((await deliveries(`platform_id=${player.platform_id}&source=api`)).total).toBe(before + 1);
  });

  it.each([
    ['neither platform_id nor social_id', {}],
    ['both platform_id and social_id', { platform_id: '76561190000000001', social_id: FREE_SOCIAL }],
    ['a quantity of 0', { platform_id: '76561190000000001', quantity: 0 }],
    ['a quantity of 101', { platform_id: '76561190000000001', quantity: 101 }],
    ['a fractional quantity', { platform_id: '76561190000000001', quantity: 1.5 }],
    ['a 16-digit platform id', { platform_id: '7656119000000001' }],
    ['a 16-digit social id', { social_id: '1234567890123456' }],
    ['an unknown field', { platform_id: '76561190000000001', reason: 'gift' }],
  ])('refuses %s with 400', async (_what, body) => {
    const res = await post(`/v1/packs/${bySlug('gold-500').id}/deliver`, body);
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('validation_error');
  });

  it('shows old rows with the player’s current social link after a link and an unlink', async () => {
    const player = pick((p) => p.social_id === null && !p.online);
    const res = await post(`/v1/packs/${bySlug('gold-500').id}/deliver`, { platform_id: player.platform_id });
    const id = (res.json as Delivery).purchase_id;
    const row = async () =>
      (await deliveries(`platform_id=${player.platform_id}&limit=100`)).data.find((d) => d.id === id)!;
    expect((await row()).player.social_id).toBeNull();
    const linked = await post(`/v1/players/${player.platform_id}/social`, { social_id: FREE_SOCIAL });
    expect(linked.status).toBe(200);
    expect((await row()).player.social_id).toBe(FREE_SOCIAL);
    expect((await deliveries(`social_id=${FREE_SOCIAL}`)).data.map((d) => d.id)).toContain(id);
    const unlinked = await stack.call(`/v1/players/${player.platform_id}/social`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(unlinked.status).toBe(200);
    expect((await row()).player.social_id).toBeNull();
    expect((await deliveries(`social_id=${FREE_SOCIAL}`)).total).toBe(0);
  });

  it('needs packs:deliver', async () => {
    const { key: reader } = await stack.data.createKey('--name', 'reader', '--scopes', 'packs:read');
    const res = await post(
      `/v1/packs/${bySlug('gold-500').id}/deliver`,
      { platform_id: '76561190000000001' },
      { authorization: `Bearer ${reader}` },
    );
    expect(res.status).toBe(403);
    expect((res.json as { error: { details: unknown } }).error.details).toEqual({
      missing_scope: 'packs:deliver',
    });
  });
});
