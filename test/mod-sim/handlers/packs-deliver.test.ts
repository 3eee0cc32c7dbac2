import { describe, expect, it } from 'vitest';
import { OpError } from '../../../protocol/ops/index.ts';
import { PACK_CONTENTS, packContents } from '../../../mod-sim/handlers/packs-contents.ts';
import { PLAYER_INVENTORY_CAPACITY } from '../../../mod-sim/handlers/packs-deliver.ts';
import { ITEM_KINDS } from '../../../mod-sim/world/vocab/items.ts';
import { countItems } from '../../../mod-sim/world/index.ts';
import {
  ACTOR,
  deliverArgs,
  findPlayer,
  neverJoinedId,
  packBySlug,
  roomOf,
  shopWorld,
} from './packs-support.ts';

const SEED = 3; // a world where every pack template the tests use is live and enabled

describe('pack contents', () => {
  it('names only item classes of the world vocabulary', () => {
    const classes = new Set(ITEM_KINDS.map((kind) => kind.class));
    for (const parts of Object.values(PACK_CONTENTS)) {
      for (const part of parts)
        if (part.kind === 'item') expect(classes.has(part.class), part.class).toBe(true);
    }
  });

  it('gives a later edition its template’s contents, and an unknown slug one unlock', () => {
    expect(packContents({ name: 'gold-100-2' })).toBe(PACK_CONTENTS['gold-100']);
    expect(packContents({ name: 'gold-100' })).toBe(PACK_CONTENTS['gold-100']);
    expect(packContents({ name: 'mystery' })).toEqual([{ kind: 'unlock', name: 'mystery' }]);
  });
});

describe('packs.deliver', () => {
  it('puts an item pack into an online player’s inventory and records an api delivery', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => p.online);
    const pack = packBySlug(world, 'ak47-bundle');
    const before = countItems(world.players.inventory(player));
    const ledgerBefore = world.ledger.length;
    const result = await call('packs.deliver', deliverArgs(pack, { platform_id: player.platform_id }, 2));
    expect(result).toEqual({
      pack: { id: pack.id, name: pack.name, display_name: pack.display_name },
      player: { platform_id: player.platform_id, social_id: player.social_id },
      quantity: 2,
      delivered: true,
      status: 'completed',
      purchase_id: world.shop.deliveries.keyAt(0),
      error_message: null,
    });
    const items = world.players.inventory(player);
    expect(countItems(items)).toBe(before + 8);
    expect(items.filter((i) => i.class === 'Magazine_AK47').length).toBeGreaterThanOrEqual(6);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(world.shop.deliveries.itemAt(0)).toMatchObject({ source: 'api', total_price: 0, quantity: 2 });
    expect(world.ledger.length).toBe(ledgerBefore);
  });

  it('credits a currency pack offline too, with a ledger row of source pack', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => !p.online);
    const pack = packBySlug(world, 'gold-500');
    const gold = player.gold;
    const result = await call('packs.deliver', deliverArgs(pack, { platform_id: player.platform_id }, 3));
    expect(result.status).toBe('completed');
    expect(player.gold).toBe(gold + 1_500);
    expect(world.ledger.entry(world.ledger.length - 1)).toMatchObject({
      player: { platform_id: player.platform_id },
      actor: { platform_id: ACTOR.platform_id, social_id: ACTOR.social_id },
      asset: 'gold',
      mode: 'delta',
      amount: 1_500,
      balance_before: gold,
      balance_after: gold + 1_500,
      scope: 'player',
      source: 'pack',
      pack_name: pack.name,
    });
  });

  it('fails an item pack for an offline player, and lands a mixed pack partly', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => !p.online);
    const items = countItems(world.players.inventory(player));
    const failed = await call(
      'packs.deliver',
      deliverArgs(packBySlug(world, 'ak47-bundle'), { platform_id: player.platform_id }),
    );
    expect(failed).toMatchObject({ status: 'failed', delivered: false });
    expect(failed.error_message).toMatch(/offline/);
    const money = player.money;
    const partial = await call(
      'packs.deliver',
      deliverArgs(packBySlug(world, 'starter-kit'), { platform_id: player.platform_id }),
    );
    expect(partial).toMatchObject({ status: 'partial', delivered: true });
    expect(player.money).toBe(money + 1_000);
    expect(countItems(world.players.inventory(player))).toBe(items);
  });

  it('fills the inventory to its capacity and reports the rest as partial', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => p.online);
    const room = roomOf(world, player);
    const result = await call(
      'packs.deliver',
      deliverArgs(packBySlug(world, 'ak47-bundle'), { platform_id: player.platform_id }, 20),
    );
    expect(result).toMatchObject({ status: 'partial', delivered: true });
    expect(result.error_message).toBe(
      `Inventory full: ${80 - room} of 80 item(s) did not fit and were dropped`,
    );
    expect(countItems(world.players.inventory(player))).toBe(PLAYER_INVENTORY_CAPACITY);
    const again = await call(
      'packs.deliver',
      deliverArgs(packBySlug(world, 'ak47-bundle'), { platform_id: player.platform_id }),
    );
    expect(again).toMatchObject({ status: 'failed', delivered: false });
  });

  it('lands vehicles and unlocks without taking inventory slots', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => p.online);
    const items = countItems(world.players.inventory(player));
    for (const slug of ['dirtbike', 'fame-boost-1h']) {
      const result = await call(
        'packs.deliver',
        deliverArgs(packBySlug(world, slug), { platform_id: player.platform_id }),
      );
      expect(result.status).toBe('completed');
    }
    expect(countItems(world.players.inventory(player))).toBe(items);
  });

  it('accepts a never-seen platform id and records a failed delivery', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const stranger = neverJoinedId(world);
    const result = await call(
      'packs.deliver',
      deliverArgs(packBySlug(world, 'gold-500'), { platform_id: stranger }),
    );
    expect(result).toMatchObject({
      player: { platform_id: stranger, social_id: null },
      status: 'failed',
      delivered: false,
      error_message: 'Player not found in the game database',
    });
    expect(world.players.byPlatformId(stranger)).toBeUndefined();
    expect(world.shop.deliveries.itemAt(0).player.platform_id).toBe(stranger);
  });

  it('resolves a linked social id and refuses one linked to nobody', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const linked = findPlayer(world, (p) => p.social_id !== null);
    const pack = packBySlug(world, 'gold-500');
    const result = await call('packs.deliver', deliverArgs(pack, { social_id: linked.social_id as string }));
    expect(result.player).toEqual({ platform_id: linked.platform_id, social_id: linked.social_id });
    await expect(
      call('packs.deliver', deliverArgs(pack, { social_id: '99000000000000000001' })),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers not_found for an unknown or deleted pack', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => p.online);
    const pack = packBySlug(world, 'gold-500');
    world.shop.deletePack(pack.id);
    await expect(
      call('packs.deliver', deliverArgs(pack, { platform_id: player.platform_id })),
    ).rejects.toBeInstanceOf(OpError);
    await expect(
      call('packs.deliver', { ...deliverArgs(pack, { platform_id: player.platform_id }), pack_id: '999999' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers unsupported on mods older than 2.0.40, and grants from 2.0.40', async () => {
    for (const [version, ok] of [
      ['2.0.39', false],
      ['2.0.40', true],
    ] as const) {
      const { world, call } = shopWorld({ seed: SEED, modVersion: version });
      const args = deliverArgs(packBySlug(world, 'gold-500'), {
        platform_id: findPlayer(world, () => true).platform_id,
      });
      if (ok) expect((await call('packs.deliver', args)).status).toBe('completed');
      else await expect(call('packs.deliver', args)).rejects.toMatchObject({ code: 'unsupported' });
    }
  });

  it('applies a repeated op id once and answers the first result', async () => {
    const { world, call } = shopWorld({ seed: SEED });
    const player = findPlayer(world, (p) => !p.online);
    const args = deliverArgs(packBySlug(world, 'gold-500'), { platform_id: player.platform_id });
    const count = world.shop.deliveries.length;
    const gold = player.gold;
    const first = await call('packs.deliver', args, 'op-1');
    const second = await call('packs.deliver', args, 'op-1');
    expect(second).toEqual(first);
    expect(world.shop.deliveries.length).toBe(count + 1);
    expect(player.gold).toBe(gold + 500);
  });
});

describe('delivery status through game faults', () => {
  it('reports ledger_failed when the ledger write fails: the gold moved, the ledger does not show it', async () => {
    const { world, call, faults } = shopWorld({ seed: SEED });
    faults.add({ op: 'packs.ledger', kind: 'error', code: 'internal', message: 'disk full', times: 1 });
    const player = findPlayer(world, (p) => !p.online);
    const gold = player.gold;
    const ledger = world.ledger.length;
    const args = deliverArgs(packBySlug(world, 'gold-500'), { platform_id: player.platform_id });
    const result = await call('packs.deliver', args);
    expect(result).toMatchObject({ status: 'ledger_failed', delivered: true });
    expect(result.error_message).toBe('The ledger entry could not be written');
    expect(player.gold).toBe(gold + 500);
    expect(world.ledger.length).toBe(ledger);
    expect((await call('packs.deliver', args)).status).toBe('completed');
    expect(world.ledger.length).toBe(ledger + 1);
  });

  it('leaves an item-only grant alone: it writes no ledger row, so the fault waits', async () => {
    const { world, call, faults } = shopWorld({ seed: SEED });
    faults.add({ op: 'packs.ledger', kind: 'error', code: 'internal', message: 'x', times: 1 });
    const player = findPlayer(world, (p) => p.online);
    const args = deliverArgs(packBySlug(world, 'ak47-bundle'), { platform_id: player.platform_id });
    expect((await call('packs.deliver', args)).status).toBe('completed');
    expect(faults.rules()).toHaveLength(1);
  });

  it('never lets a * rule fail a game step', async () => {
    const { world, call, faults } = shopWorld({ seed: SEED });
    faults.add({ op: '*', kind: 'error', code: 'internal', message: 'x' });
    const player = findPlayer(world, (p) => !p.online);
    const args = deliverArgs(packBySlug(world, 'gold-500'), { platform_id: player.platform_id });
    expect((await call('packs.deliver', args)).status).toBe('completed');
  });
});
