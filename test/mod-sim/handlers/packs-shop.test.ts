import { describe, expect, it } from 'vitest';
import { type PackPart, packContents } from '../../../mod-sim/handlers/packs-contents.ts';
import { gameFaults } from '../../../mod-sim/handlers/packs-deliver.ts';
import { adminGivePack, purchasePack } from '../../../mod-sim/handlers/packs-game.ts';
import { HOUR } from '../../../mod-sim/world/index.ts';
import { deliverArgs, findPlayer, neverJoinedId, packBySlug, shopWorld } from './packs-support.ts';

const SEED = 3;

describe('packs.list and packs.get', () => {
  it('pages the catalogue newest-configured first with a total', async () => {
    const t = shopWorld({ seed: SEED });
    const packs = t.world.shop.packs.values();
    const first = await t.list('packs.list', { limit: 5 });
    expect(first.total).toBe(packs.length);
    expect(first.data.map((p) => p.id)).toEqual(packs.slice(0, 5).map((p) => p.id));
    const second = await t.list('packs.list', { limit: 5, after: first.next });
    expect(second.data[0]?.id).toBe(packs[5]?.id);
  });

  it('filters by enabled, category and a case-insensitive name search', async () => {
    const t = shopWorld({ seed: SEED });
    const packs = t.world.shop.packs.values();
    const disabled = await t.list('packs.list', { enabled: false });
    expect(disabled.total).toBe(packs.filter((p) => !p.enabled).length);
    expect(disabled.data.every((p) => !p.enabled)).toBe(true);
    const currency = await t.list('packs.list', { category_id: '2' });
    expect(currency.data.length).toBeGreaterThan(0);
    expect(currency.data.every((p) => p.category.name === 'currency')).toBe(true);
    const search = await t.list('packs.list', { search: 'GOLD' });
    expect(search.data.map((p) => p.name).every((name) => name.includes('gold'))).toBe(true);
    expect((await t.list('packs.list', { search: 'Sniper Kit' })).total).toBeGreaterThan(0);
  });

  it('gets one pack, and answers not_found once it is deleted', async () => {
    const t = shopWorld({ seed: SEED });
    const pack = packBySlug(t.world, 'ak47-bundle');
    expect(await t.call('packs.get', { id: String(pack.id) })).toEqual(pack);
    t.world.shop.deletePack(pack.id);
    await expect(t.call('packs.get', { id: String(pack.id) })).rejects.toMatchObject({ code: 'not_found' });
    await expect(t.call('packs.get', { id: '12345678901234567890' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('packs.deliveries', () => {
  it('filters by player, pack, source and status, newest first, with totals', async () => {
    const t = shopWorld({ seed: SEED });
    const player = findPlayer(t.world, (p) => !p.online && p.social_id !== null);
    const pack = packBySlug(t.world, 'ak47-bundle');
    await t.call('packs.deliver', deliverArgs(pack, { platform_id: player.platform_id }));
    const mine = await t.list('packs.deliveries', { platform_id: player.platform_id });
    expect(mine.data[0]).toMatchObject({ source: 'api', status: 'failed', pack: { id: pack.id } });
    expect(mine.total).toBe(
      t.world.shop.deliveries.values().filter((d) => d.player.platform_id === player.platform_id).length,
    );
    const bySocial = await t.list('packs.deliveries', { social_id: player.social_id! });
    expect(bySocial.total).toBe(mine.total);
    const combined = await t.list('packs.deliveries', {
      pack_id: String(pack.id),
      source: 'api',
      status: 'failed',
    });
    expect(
      combined.data.every((d) => d.pack.id === pack.id && d.source === 'api' && d.status === 'failed'),
    ).toBe(true);
    expect((await t.list('packs.deliveries', { source: 'nonsense' })).total).toBe(0);
  });

  it('shows the current social link on old rows and finds nothing for an unlinked social id', async () => {
    const t = shopWorld({ seed: SEED });
    const player = findPlayer(t.world, (p) => p.social_id !== null);
    const old = player.social_id!;
    await t.call(
      'packs.deliver',
      deliverArgs(packBySlug(t.world, 'gold-500'), { platform_id: player.platform_id }),
    );
    t.world.players.setSocialLink(player, null);
    expect((await t.list('packs.deliveries', { social_id: old })).total).toBe(0);
    const rows = await t.list('packs.deliveries', { platform_id: player.platform_id });
    expect(rows.data.every((d) => d.player.social_id === null)).toBe(true);
  });
});

describe('shop purchases and admin gives', () => {
  it('charges coins for a purchase, records source shop and writes the ledger', async () => {
    const t = shopWorld({ seed: SEED });
    const pack = t.world.shop.packs.values().find((p) => p.shop_enabled && /^(gold|cash)-/.test(p.name))!;
    const credit = packContents(pack)[0] as Extract<PackPart, { kind: 'currency' }>;
    const player = findPlayer(t.world, (p) => p.online);
    player.coins = pack.price * 2;
    const ledger = t.world.ledger.length;
    const outcome = purchasePack(t.world, pack.id, player.platform_id);
    expect(outcome.ok && outcome.delivery).toMatchObject({
      source: 'shop',
      status: 'completed',
      total_price: pack.price,
    });
    expect(player.coins).toBe(pack.price);
    const rows = [t.world.ledger.entry(ledger), t.world.ledger.entry(ledger + 1)];
    expect(rows.map((r) => [r.asset, r.amount, r.reason, r.source])).toEqual([
      ['coins', -pack.price, 'Shop purchase', 'pack'],
      [credit.asset, credit.amount, 'Pack delivery', 'pack'],
    ]);
  });

  it('refunds a purchase that lands nothing, and reports refund_failed when the refund fails', async () => {
    const t = shopWorld({ seed: SEED });
    const pack = packBySlug(t.world, 'medical-crate');
    const player = findPlayer(t.world, (p) => p.online);
    adminGivePack(t.world, packBySlug(t.world, 'ak47-bundle').id, player.platform_id, { quantity: 20 });
    player.coins = pack.price * 10;
    const refunded = purchasePack(t.world, pack.id, player.platform_id);
    expect(refunded.ok && refunded.delivery.status).toBe('failed');
    expect(player.coins).toBe(pack.price * 10);
    t.faults.add({ op: 'packs.refund', kind: 'error', code: 'internal', message: 'x', times: 1 });
    t.advance(2 * HOUR);
    const lost = purchasePack(t.world, pack.id, player.platform_id, 1, gameFaults(t.faults));
    expect(lost.ok && lost.delivery).toMatchObject({ status: 'refund_failed', total_price: pack.price });
    expect(lost.ok && lost.delivery.error_message).toMatch(/refund of \d+ coins could not be written/);
    expect(player.coins).toBe(pack.price * 9);
  });

  it('refuses a purchase without enough coins, offline, off the shop, or past the buy limit', () => {
    const t = shopWorld({ seed: SEED });
    const online = findPlayer(t.world, (p) => p.online);
    const offline = findPlayer(t.world, (p) => !p.online);
    const limited = t.world.shop.packs.values().find((p) => p.shop_enabled && p.buy_limit.count > 0)!;
    const hidden = t.world.shop.packs.values().find((p) => !p.shop_enabled)!;
    online.coins = 0;
    expect(purchasePack(t.world, limited.id, online.platform_id)).toMatchObject({ ok: false });
    online.coins = 1_000_000;
    expect(purchasePack(t.world, limited.id, offline.platform_id)).toMatchObject({ ok: false });
    expect(purchasePack(t.world, hidden.id, online.platform_id)).toMatchObject({ ok: false });
    expect(purchasePack(t.world, limited.id, online.platform_id, limited.buy_limit.count).ok).toBe(true);
    expect(purchasePack(t.world, limited.id, online.platform_id)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^Buy limit reached/),
    });
    t.advance(limited.buy_limit.window_minutes * 60_000 + 1_000);
    expect(purchasePack(t.world, limited.id, online.platform_id).ok).toBe(true);
  });

  it('records admin gives on every mod version, to never-seen ids as failed', () => {
    const t = shopWorld({ seed: SEED, modVersion: '2.0.10' });
    const pack = packBySlug(t.world, 'gold-500');
    const given = adminGivePack(t.world, pack.id, findPlayer(t.world, () => true).platform_id);
    expect(given.ok && given.delivery).toMatchObject({ source: 'admin', status: 'completed' });
    const stranger = adminGivePack(t.world, pack.id, neverJoinedId(t.world));
    expect(stranger.ok && stranger.delivery.status).toBe('failed');
  });
});
