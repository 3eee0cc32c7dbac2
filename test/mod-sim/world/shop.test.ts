import { describe, expect, it } from 'vitest';
import {
  CLAIM_SOURCES,
  CLAIM_STATUSES,
  DELIVERY_SOURCES,
  DELIVERY_STATUSES,
  createWorld,
  sqlDateTime,
} from '../../../mod-sim/world/index.ts';
import { sharedWorld } from './fixture.ts';

const SQL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('pack catalogue', () => {
  const world = sharedWorld();
  const packs = world.shop.packs.values();

  it('lists packs newest-configured first, in every category', () => {
    expect(packs.length).toBeGreaterThan(10);
    for (let i = 1; i < packs.length; i++) {
      expect(packs[i - 1]!.id).toBeGreaterThan(packs[i]!.id);
      expect(packs[i - 1]!.created_at >= packs[i]!.created_at).toBe(true);
    }
    expect(new Set(packs.map((p) => p.category.name))).toEqual(
      new Set(world.shop.categories.map((c) => c.name)),
    );
  });

  it('describes each pack consistently', () => {
    for (const pack of packs) {
      expect(pack.name).toMatch(/^[a-z0-9-]+$/);
      expect(pack.image_url).toBe(`packs/${pack.name}.png`);
      expect(pack.price).toBeGreaterThan(0);
      expect(pack.created_at).toMatch(SQL);
      expect(pack.updated_at >= pack.created_at).toBe(true);
      if (pack.shop_enabled) expect(pack.enabled).toBe(true);
      if (pack.buy_limit.count === 0) expect(pack.buy_limit.window_minutes).toBe(0);
      else expect(pack.buy_limit.window_minutes).toBeGreaterThan(0);
      expect(world.shop.packRef(pack.id)).toEqual({
        id: pack.id,
        name: pack.name,
        display_name: pack.display_name,
      });
    }
    expect(new Set(packs.map((p) => p.name)).size).toBe(packs.length);
  });

  it('drops both labels from a deleted pack’s reference but keeps its id', () => {
    const local = createWorld({ players: 30 });
    const pack = local.shop.packs.itemAt(0);
    const ref = local.shop.packRef(pack.id)!;
    expect(local.shop.deletePack(pack.id)).toBe(true);
    expect(local.shop.pack(pack.id)).toBeUndefined();
    expect(ref).toEqual({ id: pack.id, name: null, display_name: null });
    expect(local.shop.packSlug(pack.id)).toBe(pack.name);
  });
});

describe('pack deliveries', () => {
  const world = sharedWorld({ players: 1_000 });
  const deliveries = world.shop.deliveries.values();

  it('lists deliveries newest first from the shop, claims, admins and the API', () => {
    for (let i = 1; i < deliveries.length; i++) {
      expect(deliveries[i - 1]!.id).toBeGreaterThan(deliveries[i]!.id);
      expect(deliveries[i - 1]!.delivered_at >= deliveries[i]!.delivered_at).toBe(true);
    }
    expect(new Set(deliveries.map((d) => d.source))).toEqual(new Set(DELIVERY_SOURCES));
    expect(new Set(deliveries.map((d) => d.status))).toEqual(new Set(DELIVERY_STATUSES));
  });

  it('charges only shop purchases and explains every failure', () => {
    for (const delivery of deliveries) {
      if (delivery.source !== 'shop') expect(delivery.total_price).toBe(0);
      else expect(delivery.total_price).toBeGreaterThan(0);
      expect(delivery.error_message === null).toBe(delivery.status === 'completed');
      expect(delivery.quantity).toBeGreaterThanOrEqual(1);
      expect(delivery.delivered_at).toMatch(SQL);
    }
  });

  it('keeps rows for deleted packs with null labels', () => {
    const gone = deliveries.filter((d) => d.pack.name === null);
    expect(gone.length).toBeGreaterThan(0);
    for (const delivery of gone) {
      expect(delivery.pack.display_name).toBeNull();
      expect(world.shop.pack(delivery.pack.id)).toBeUndefined();
    }
  });

  it('records failed API grants to never-seen platform ids', () => {
    const strangers = deliveries.filter(
      (d) => world.players.byPlatformId(d.player.platform_id) === undefined,
    );
    for (const delivery of strangers) {
      expect(delivery.source).toBe('api');
      expect(delivery.status).toBe('failed');
      expect(delivery.player.social_id).toBeNull();
    }
  });

  it('has no API grants on mods older than 2.0.40', () => {
    const old = createWorld({ modVersion: '2.0.39' });
    expect(old.shop.deliveries.values().some((d) => d.source === 'api')).toBe(false);
    expect(deliveries.some((d) => d.source === 'api')).toBe(true);
  });
});

describe('claim codes', () => {
  const world = sharedWorld({ players: 1_000 });
  const codes = world.shop.claimCodes.values();
  const now = sqlDateTime(world.generatedAt);

  it('lists codes newest first and finds them by code', () => {
    for (let i = 1; i < codes.length; i++)
      expect(codes[i - 1]!.created_at >= codes[i]!.created_at).toBe(true);
    for (const code of codes.slice(0, 20)) expect(world.shop.claimCode(code.code)).toBe(code);
  });

  it('covers every source and status', () => {
    expect(new Set(codes.map((c) => c.source))).toEqual(new Set(CLAIM_SOURCES));
    expect(new Set(codes.map((c) => c.status))).toEqual(new Set(CLAIM_STATUSES));
  });

  it('derives each status from uses and expiry', () => {
    for (const code of codes) {
      expect(code.uses_remaining).toBeGreaterThanOrEqual(0);
      expect(code.uses_remaining).toBeLessThanOrEqual(code.max_uses);
      if (code.status === 'exhausted') expect(code.uses_remaining).toBe(0);
      if (code.status === 'expired') expect(code.expires_at! <= now).toBe(true);
      if (code.status === 'active') {
        expect(code.uses_remaining).toBeGreaterThan(0);
        if (code.expires_at !== null) expect(code.expires_at > now).toBe(true);
      }
      if (code.target !== null) expect(code.max_uses).toBe(1);
      if (code.source === 'partner') expect(code.target).toBeNull();
    }
    expect(codes.some((c) => c.expires_at === null)).toBe(true);
  });

  it('reports the direct-message outcome, with the message ids only when sent', () => {
    for (const code of codes) {
      if (code.source === 'partner' || code.target === null) expect(code.delivery_status).toBe('unknown');
      else if (code.target.social_id === null) expect(code.delivery_status).toBe('target_not_linked');
      else expect(['sent', 'failed', 'pending']).toContain(code.delivery_status);
      expect(code.dm === null).toBe(code.delivery_status !== 'sent');
    }
    expect(codes.some((c) => c.delivery_status === 'sent')).toBe(true);
  });

  it('reports every delivery as unknown on mods older than 2.0.47', () => {
    const old = createWorld({ modVersion: '2.0.46' });
    for (const code of old.shop.claimCodes) {
      expect(code.delivery_status).toBe('unknown');
      expect(code.dm).toBeNull();
    }
  });
});
