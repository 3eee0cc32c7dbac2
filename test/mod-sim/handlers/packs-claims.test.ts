import { describe, expect, it } from 'vitest';
import { processDmQueue } from '../../../mod-sim/handlers/claim-codes-dm.ts';
import { redeemClaimCode } from '../../../mod-sim/handlers/claim-codes-redeem.ts';
import { gameFaults } from '../../../mod-sim/handlers/packs-deliver.ts';
import { DAY, sqlDateTime } from '../../../mod-sim/world/index.ts';
import { ACTOR, findPlayer, neverJoinedId, packBySlug, shopWorld, type ShopWorld } from './packs-support.ts';

const SEED = 3;

function mintArgs(
  t: ShopWorld,
  slug: string,
  over: { platform_id?: string | null; max_uses?: number; expiry_days?: number } = {},
) {
  return {
    pack_id: String(packBySlug(t.world, slug).id),
    platform_id: null,
    max_uses: 1,
    expiry_days: 0,
    actor: ACTOR,
    ...over,
  };
}

describe('claim_codes.mint', () => {
  it('mints an active panel code with its expiry, and lists it first', async () => {
    const t = shopWorld({ seed: SEED });
    const minted = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { max_uses: 5, expiry_days: 7 }));
    expect(minted).toMatchObject({ target: null, max_uses: 5, dm_status: 'not_requested' });
    expect(minted.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(minted.expires_at).toBe(sqlDateTime(t.world.clock() + 7 * DAY));
    const page = await t.list('claim_codes.list', { limit: 1 });
    expect(page.data[0]).toMatchObject({
      code: minted.code,
      source: 'panel',
      status: 'active',
      uses_remaining: 5,
      created_at: sqlDateTime(t.world.clock()),
      delivery_status: 'unknown',
      dm: null,
    });
  });

  it('never expires a code minted with expiry_days 0', async () => {
    const t = shopWorld({ seed: SEED });
    const minted = await t.call('claim_codes.mint', mintArgs(t, 'gold-500'));
    expect(minted.expires_at).toBeNull();
    t.advance(4_000 * DAY);
    expect((await t.list('claim_codes.list', { limit: 1 })).data[0]?.status).toBe('active');
  });

  it('answers not_found for an unknown pack', async () => {
    const t = shopWorld({ seed: SEED });
    await expect(
      t.call('claim_codes.mint', { ...mintArgs(t, 'gold-500'), pack_id: '9999' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('reports target_not_linked for an unlinked or never-seen recipient', async () => {
    const t = shopWorld({ seed: SEED });
    const unlinked = findPlayer(t.world, (p) => p.social_id === null);
    for (const platformId of [unlinked.platform_id, neverJoinedId(t.world)]) {
      const minted = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { platform_id: platformId }));
      expect(minted).toMatchObject({
        target: { platform_id: platformId, social_id: null },
        dm_status: 'target_not_linked',
      });
      expect(t.world.shop.claimCode(minted.code)?.delivery_status).toBe('target_not_linked');
    }
  });
});

describe('the direct-message queue', () => {
  it('queues a linked recipient’s message (pending), then sends it with the message ids', async () => {
    const t = shopWorld({ seed: SEED });
    const linked = findPlayer(t.world, (p) => p.social_id !== null);
    const minted = await t.call(
      'claim_codes.mint',
      mintArgs(t, 'gold-500', { platform_id: linked.platform_id }),
    );
    expect(minted.dm_status).toBe('queued');
    const code = t.world.shop.claimCode(minted.code)!;
    expect(code).toMatchObject({ delivery_status: 'pending', dm: null });
    expect(processDmQueue(t.world)).toBeGreaterThanOrEqual(1);
    expect(code.delivery_status).toBe('sent');
    expect(code.dm?.channel_id).toMatch(/^[0-9]{17,20}$/);
    expect(code.dm?.message_id).toMatch(/^[0-9]{17,20}$/);
    expect(processDmQueue(t.world)).toBe(0);
  });

  it('fails a message whose recipient unlinked, or whose code was revoked, before it went out', async () => {
    const t = shopWorld({ seed: SEED });
    const [a, b] = [0, 1].map((n) => findPlayer(t.world, (p) => p.social_id !== null, n));
    const first = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { platform_id: a!.platform_id }));
    const second = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { platform_id: b!.platform_id }));
    t.world.players.setSocialLink(a!, null);
    await t.call('claim_codes.revoke', { code: second.code, actor: ACTOR });
    processDmQueue(t.world);
    expect(t.world.shop.claimCode(first.code)).toMatchObject({ delivery_status: 'failed', dm: null });
    expect(t.world.shop.claimCode(second.code)).toMatchObject({
      delivery_status: 'failed',
      status: 'revoked',
    });
  });

  it('refuses outright when the queue is full or a claim_codes.dm rule says so', async () => {
    const t = shopWorld({ seed: SEED });
    const linked = findPlayer(t.world, (p) => p.social_id !== null);
    const args = mintArgs(t, 'gold-500', { platform_id: linked.platform_id });
    t.world.shop.dmQueueCapacity = 0;
    const full = await t.call('claim_codes.mint', args);
    expect(full.dm_status).toBe('failed');
    expect(t.world.shop.claimCode(full.code)?.delivery_status).toBe('failed');
    t.world.shop.dmQueueCapacity = 1_000;
    t.faults.add({ op: 'claim_codes.dm', kind: 'error', code: 'internal', message: 'bot offline', times: 1 });
    expect((await t.call('claim_codes.mint', args)).dm_status).toBe('failed');
    expect((await t.call('claim_codes.mint', args)).dm_status).toBe('queued');
  });

  it('hands the message over untracked on mods older than 2.0.47: queued, delivery unknown', async () => {
    const t = shopWorld({ seed: SEED, modVersion: '2.0.46' });
    const linked = findPlayer(t.world, (p) => p.social_id !== null);
    const minted = await t.call(
      'claim_codes.mint',
      mintArgs(t, 'gold-500', { platform_id: linked.platform_id }),
    );
    expect(minted.dm_status).toBe('queued');
    expect(t.world.shop.claimCode(minted.code)?.delivery_status).toBe('unknown');
    expect(t.world.shop.pendingDms.size).toBe(0);
  });
});

describe('claim code status', () => {
  it('expires an active code once the clock reaches expires_at, and refuses to redeem it', async () => {
    const t = shopWorld({ seed: SEED });
    const player = findPlayer(t.world, (p) => p.online);
    const minted = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { expiry_days: 1 }));
    t.advance(DAY - 1_000);
    expect((await t.list('claim_codes.list', { status: 'active', limit: 1 })).data[0]?.code).toBe(
      minted.code,
    );
    t.advance(1_000);
    const expired = await t.list('claim_codes.list', { status: 'expired', limit: 100 });
    expect(expired.data.map((c) => c.code)).toContain(minted.code);
    expect(redeemClaimCode(t.world, minted.code, player.platform_id)).toEqual({
      ok: false,
      reason: `Claim code ${minted.code} is expired`,
    });
  });

  it('exhausts a public code at its last use, once per player', async () => {
    const t = shopWorld({ seed: SEED });
    const [a, b, c] = [0, 1, 2].map((n) => findPlayer(t.world, (p) => p.online, n));
    const { code } = await t.call(
      'claim_codes.mint',
      mintArgs(t, 'gold-500', { max_uses: 2, expiry_days: 1 }),
    );
    expect(redeemClaimCode(t.world, code.toLowerCase(), a!.platform_id).ok).toBe(true);
    expect(redeemClaimCode(t.world, code, a!.platform_id)).toMatchObject({ ok: false });
    expect(t.world.shop.claimCode(code)).toMatchObject({ status: 'active', uses_remaining: 1 });
    expect(redeemClaimCode(t.world, code, b!.platform_id).ok).toBe(true);
    expect(t.world.shop.claimCode(code)).toMatchObject({ status: 'exhausted', uses_remaining: 0 });
    expect(redeemClaimCode(t.world, code, c!.platform_id)).toMatchObject({ ok: false });
    t.advance(2 * DAY);
    expect(t.world.shop.claimCode(code)?.status).toBe('exhausted');
    expect((await t.list('claim_codes.list', { status: 'exhausted' })).data.map((x) => x.code)).toContain(
      code,
    );
  });

  it('lets only the target redeem a targeted code, and records a claim delivery and ledger row', async () => {
    const t = shopWorld({ seed: SEED });
    const target = findPlayer(t.world, (p) => p.online);
    const other = findPlayer(t.world, (p) => p.online, 1);
    const { code } = await t.call(
      'claim_codes.mint',
      mintArgs(t, 'gold-500', { platform_id: target.platform_id }),
    );
    expect(redeemClaimCode(t.world, code, other.platform_id)).toMatchObject({ ok: false });
    const gold = target.gold;
    const redeemed = redeemClaimCode(t.world, code, target.platform_id);
    expect(redeemed.ok && redeemed.delivery).toMatchObject({
      source: 'claim',
      status: 'completed',
      total_price: 0,
    });
    expect(target.gold).toBe(gold + 500);
    expect(t.world.ledger.entry(t.world.ledger.length - 1)).toMatchObject({
      source: 'claim',
      reason: 'Claim code redemption',
      actor: { platform_id: target.platform_id },
    });
    expect(t.world.shop.claimCode(code)?.status).toBe('exhausted');
  });

  it('refuses redemption by an offline player, and of a deleted pack, using nothing up', async () => {
    const t = shopWorld({ seed: SEED });
    const offline = findPlayer(t.world, (p) => !p.online);
    const online = findPlayer(t.world, (p) => p.online);
    const { code } = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { max_uses: 3 }));
    expect(redeemClaimCode(t.world, code, offline.platform_id)).toMatchObject({ ok: false });
    t.world.shop.deletePack(packBySlug(t.world, 'gold-500').id);
    expect(redeemClaimCode(t.world, code, online.platform_id)).toMatchObject({ ok: false });
    expect(t.world.shop.claimCode(code)).toMatchObject({
      uses_remaining: 3,
      pack: { name: null, display_name: null },
    });
  });

  it('revokes from any status, repeatably, and a revoked code cannot be redeemed', async () => {
    const t = shopWorld({ seed: SEED });
    const player = findPlayer(t.world, (p) => p.online);
    const { code } = await t.call('claim_codes.mint', mintArgs(t, 'gold-500', { expiry_days: 1 }));
    t.advance(2 * DAY);
    expect(await t.call('claim_codes.revoke', { code: code.toLowerCase(), actor: ACTOR })).toEqual({
      code,
      revoked: true,
    });
    expect(await t.call('claim_codes.revoke', { code, actor: ACTOR })).toEqual({ code, revoked: true });
    expect(t.world.shop.claimCode(code)?.status).toBe('revoked');
    expect(redeemClaimCode(t.world, code, player.platform_id)).toMatchObject({ ok: false });
    await expect(
      t.call('claim_codes.revoke', { code: 'NOPE-NOPE-NOPE', actor: ACTOR }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('reports ledger_failed on a redemption whose ledger write fails', async () => {
    const t = shopWorld({ seed: SEED });
    const player = findPlayer(t.world, (p) => p.online);
    const { code } = await t.call('claim_codes.mint', mintArgs(t, 'gold-500'));
    t.faults.add({ op: 'packs.ledger', kind: 'error', code: 'internal', message: 'x', times: 1 });
    const redeemed = redeemClaimCode(t.world, code, player.platform_id, gameFaults(t.faults));
    expect(redeemed.ok && redeemed.delivery.status).toBe('ledger_failed');
  });
});

describe('claim_codes.list', () => {
  it('filters by pack, source, status and partial target digits, with totals', async () => {
    const t = shopWorld({ seed: SEED, players: 400 });
    const all = t.world.shop.claimCodes.values();
    const codes = await t.list('claim_codes.list', {});
    expect(codes.total).toBe(all.length);
    const partner = await t.list('claim_codes.list', { source: 'partner' });
    expect(partner.total).toBe(all.filter((c) => c.source === 'partner').length);
    expect(partner.data.every((c) => c.source === 'partner' && c.delivery_status === 'unknown')).toBe(true);
    const targeted = all.find((c) => c.target !== null)!;
    const digits = targeted.target!.platform_id.slice(6, 14);
    const byTarget = await t.list('claim_codes.list', { target: digits });
    expect(byTarget.data.map((c) => c.code)).toContain(targeted.code);
    expect(byTarget.data.every((c) => c.target?.platform_id.includes(digits))).toBe(true);
    const byPack = await t.list('claim_codes.list', { pack_id: String(targeted.pack.id), status: 'active' });
    expect(byPack.data.every((c) => c.pack.id === targeted.pack.id && c.status === 'active')).toBe(true);
    expect(byPack.total).toBe(byPack.data.length);
  });

  it('walks every code once with keyset positions', async () => {
    const t = shopWorld({ seed: SEED, players: 400 });
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof t.list<'claim_codes.list'>>> = await t.list('claim_codes.list', {
        after,
        limit: 37,
      });
      seen.push(...page.data.map((c) => c.code));
      after = page.next;
    } while (after !== null);
    expect(seen).toEqual(t.world.shop.claimCodes.values().map((c) => c.code));
  });
});
