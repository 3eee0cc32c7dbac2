import { describe, expect, it } from 'vitest';
import { createWorld, rosterRow } from '../../../mod-sim/world/index.ts';

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
});
