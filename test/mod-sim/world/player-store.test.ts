import { describe, expect, it } from 'vitest';
import type { LiveState, Player } from '../../../mod-sim/world/index.ts';
import { CLEAN_MUTE, createWorld, rosterRow } from '../../../mod-sim/world/index.ts';

const LIVE: LiveState = {
  ping: 50,
  position: { x: 0, y: 0, z: 0 },
  stance: 'standing',
  alive: true,
  conscious: true,
  immortal: false,
  super_jump: false,
  item_in_hands: null,
};

/** A copy of player 0 under a new platform id and the next ordinal. */
function newcomer(template: Player, platformId: string, ordinal: number): Player {
  return {
    ...template,
    platform_id: platformId,
    social_id: null,
    user_profile_id: ordinal + 1,
    online: false,
    live: null,
    ordinal,
    refs: {
      identity: { platform_id: platformId, social_id: null },
      owner: { profile_id: ordinal + 1, name: 'New Player', platform_id: platformId, social_id: null },
      moderator: { platform_id: platformId, social_id: null, name: 'New Player' },
    },
  };
}

describe('PlayerStore', () => {
  it('finds a player by platform id, social id, profile id and ref', () => {
    const world = createWorld({ players: 50 });
    const player = world.players.list.values().find((p) => p.social_id !== null)!;
    expect(world.players.byPlatformId(player.platform_id)).toBe(player);
    expect(world.players.bySocialId(player.social_id!)).toBe(player);
    expect(world.players.byProfileId(player.user_profile_id)).toBe(player);
    expect(world.players.resolveRef(player.platform_id)).toBe(player);
    expect(world.players.resolveRef(`social:${player.social_id}`)).toBe(player);
    expect(world.players.resolveRef('social:12345678901234567')).toBeUndefined();
    expect(world.players.resolveRef('76561190000000000')).toBeUndefined();
  });

  it('keeps the roster sorted by platform id for keyset pages', () => {
    const ids = createWorld({ players: 100 })
      .players.list.values()
      .map((p) => p.platform_id);
    expect(ids).toEqual([...ids].sort());
  });

  it('relinks a social account everywhere the player is referenced', () => {
    const world = createWorld({ players: 200 });
    const delivery = world.shop.deliveries
      .values()
      .find((d) => world.players.byPlatformId(d.player.platform_id))!;
    const player = world.players.byPlatformId(delivery.player.platform_id)!;
    const old = player.social_id;
    world.players.setSocialLink(player, '123456789012345678');
    expect(rosterRow(player).social_id).toBe('123456789012345678');
    expect(delivery.player.social_id).toBe('123456789012345678');
    expect(player.refs.owner.social_id).toBe('123456789012345678');
    expect(world.players.bySocialId('123456789012345678')).toBe(player);
    if (old !== null) expect(world.players.bySocialId(old)).toBeUndefined();
    world.players.setSocialLink(player, null);
    expect(delivery.player.social_id).toBeNull();
    expect(world.players.bySocialId('123456789012345678')).toBeUndefined();
  });

  it('refuses to link a social id that another player holds', () => {
    const world = createWorld({ players: 50 });
    const [a, b] = world.players.list.values().filter((p) => p.social_id !== null);
    expect(() => world.players.setSocialLink(b!, a!.social_id)).toThrow(/linked to another player/);
  });

  it('adds a player created at run time under the next ordinal', () => {
    const world = createWorld({ players: 10 });
    const template = world.players.atOrdinal(0)!;
    const player = {
      ...template,
      platform_id: '76561190000000001',
      social_id: null,
      user_profile_id: 11,
      ordinal: 10,
      refs: {
        identity: { platform_id: '76561190000000001', social_id: null },
        owner: { profile_id: 11, name: 'New Player', platform_id: '76561190000000001', social_id: null },
        moderator: { platform_id: '76561190000000001', social_id: null, name: 'New Player' },
      },
    };
    world.players.add(player);
    expect(world.players.size).toBe(11);
    expect(world.players.byProfileId(11)).toBe(player);
    expect(world.players.list.values()[0]).toBe(player);
    expect(() => world.players.add({ ...player, ordinal: 5 })).toThrow(/ordinal/);
  });

  it('counts online players the same way the online list does', () => {
    const world = createWorld({ players: 300 });
    expect(world.players.onlineCount()).toBe(world.players.online().length);
    for (const player of world.players.online()) expect(player.live).not.toBeNull();
  });

  it('keeps the online index and count in step as players connect and leave', () => {
    const world = createWorld({ players: 100, onlineShare: 0.2 });
    const offline = world.players.list.values().filter((p) => !p.online);
    const before = world.players.onlineCount();
    world.players.setOnline(offline[0]!, LIVE);
    world.players.setOnline(offline[0]!, LIVE);
    expect(world.players.onlineCount()).toBe(before + 1);
    expect(offline[0]!.live).toBe(LIVE);
    const ids = world.players.online().map((p) => p.platform_id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain(offline[0]!.platform_id);
    world.players.setOnline(offline[0]!, null);
    expect(world.players.onlineCount()).toBe(before);
    expect(offline[0]!.online).toBe(false);
    expect(offline[0]!.live).toBeNull();
  });

  it('keeps a moderation-list entry for a platform id that never joined, never for a player', () => {
    const world = createWorld({ players: 10 });
    expect(world.players.moderationListed('76561180000000001')).toBeUndefined();
    const entry = world.players.moderationListEntry('76561180000000001');
    expect(entry.identity).toEqual({ platform_id: '76561180000000001', social_id: null });
    expect(entry.moderation.mute).toBe(CLEAN_MUTE);
    expect(world.players.moderationListEntry('76561180000000001')).toBe(entry);
    expect(world.players.moderationListed('76561180000000001')).toBe(entry);
    expect(() => world.players.moderationListEntry(world.players.list.itemAt(0).platform_id)).toThrow(
      /is a player/,
    );
  });

  it('hands a moderation-list entry to the player when that platform id joins', () => {
    const world = createWorld({ players: 10 });
    const entry = world.players.moderationListEntry('76561180000000002');
    const ban = { ...entry.moderation.ban, banned: true, reason: 'Cheating' };
    entry.moderation.ban = ban;
    const violation = {
      id: world.players.nextViolationId(),
      type: 'ban' as const,
      action: 'ban',
      source: 'api',
      reason: 'Cheating',
      issued_by: { platform_id: null, social_id: null, name: 'Console' },
      applied_at: '2025-06-01T12:00:00Z',
      expires_at: null,
      duration_sec: 0,
      metadata: {},
    };
    entry.violations.insert(violation);
    const player = newcomer(world.players.atOrdinal(0)!, '76561180000000002', 10);
    world.players.add(player);
    expect(player.moderation.ban).toBe(ban);
    expect(world.players.violations(player).values()).toEqual([violation]);
    expect(world.players.moderationListed('76561180000000002')).toBeUndefined();
  });

  it('numbers new violations above every generated one', () => {
    const world = createWorld({ players: 300 });
    let highest = 0;
    for (const player of world.players.list) {
      for (const violation of world.players.violations(player)) highest = Math.max(highest, violation.id);
    }
    expect(highest).toBeGreaterThan(0);
    expect(world.players.nextViolationId()).toBe(highest + 1);
    expect(world.players.nextViolationId()).toBe(highest + 2);
  });
});
