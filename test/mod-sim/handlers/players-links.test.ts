import { describe, expect, it } from 'vitest';
import { enrolPlayer } from '../../../mod-sim/handlers/economy.ts';
import { rosterRow } from '../../../mod-sim/world/index.ts';
import { ACTOR, find, freeSocialId, neverJoinedId, testWorld } from './players-support.ts';

describe('players.link', () => {
  it('links an unlinked player to a free social id (unlinked → linked)', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id === null);
    const social = freeSocialId(t.world);
    const result = await t.call('players.link', {
      platform_id: player.platform_id,
      social_id: social,
      actor: ACTOR,
    });
    expect(result).toEqual({ player: { platform_id: player.platform_id, social_id: social } });
    expect(t.world.players.bySocialId(social)).toBe(player);
    expect(rosterRow(player).social_id).toBe(social);
    expect(player.refs.owner.social_id).toBe(social);
    const state = await t.call('players.moderation', { ref: { social_id: social } });
    expect(state.player).toEqual(result.player);
  });

  it('answers conflict when the platform id is already linked, to the same id or another', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id !== null);
    for (const social of [player.social_id!, freeSocialId(t.world)]) {
      await expect(
        t.call('players.link', { platform_id: player.platform_id, social_id: social, actor: ACTOR }),
      ).rejects.toMatchObject({ code: 'conflict' });
    }
    expect(t.world.players.bySocialId(player.social_id!)).toBe(player);
  });

  it('answers conflict when the social id is linked to another player', async () => {
    const t = testWorld();
    const holder = find(t.world, (p) => p.social_id !== null);
    const other = find(t.world, (p) => p.social_id === null);
    await expect(
      t.call('players.link', { platform_id: other.platform_id, social_id: holder.social_id!, actor: ACTOR }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(other.social_id).toBeNull();
    expect(t.world.players.bySocialId(holder.social_id!)).toBe(holder);
  });

  it('answers not_found for a platform id that never joined', async () => {
    const t = testWorld();
    const args = { platform_id: neverJoinedId(t.world), social_id: freeSocialId(t.world), actor: ACTOR };
    await expect(t.call('players.link', args)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers not_found for a record a coin credit created, until that player joins', async () => {
    const t = testWorld();
    const platform_id = neverJoinedId(t.world);
    const args = { platform_id, social_id: freeSocialId(t.world), actor: ACTOR };
    const player = enrolPlayer(t.world, platform_id);
    await expect(t.call('players.link', args)).rejects.toMatchObject({ code: 'not_found' });
    expect(player.social_id).toBeNull();
    t.world.players.setOnline(player, find(t.world, (p) => p.live !== null).live);
    expect(await t.call('players.link', args)).toEqual({
      player: { platform_id, social_id: args.social_id },
    });
  });
});

describe('players.unlink', () => {
  it('unlinks by platform ref, and a repeat succeeds too (linked → unlinked)', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id !== null);
    const old = player.social_id!;
    const ref = { platform_id: player.platform_id };
    const expected = { player: { platform_id: player.platform_id, social_id: null } };
    expect(await t.call('players.unlink', { ref, actor: ACTOR })).toEqual(expected);
    expect(await t.call('players.unlink', { ref, actor: ACTOR })).toEqual(expected);
    expect(t.world.players.bySocialId(old)).toBeUndefined();
    expect(player.refs.moderator.social_id).toBeNull();
  });

  it('unlinks by social ref, and a repeat is not_found because the id no longer resolves', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id !== null);
    const ref = { social_id: player.social_id! };
    expect(await t.call('players.unlink', { ref, actor: ACTOR })).toEqual({
      player: { platform_id: player.platform_id, social_id: null },
    });
    await expect(t.call('players.unlink', { ref, actor: ACTOR })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('answers not_found for a platform id that never joined', async () => {
    const t = testWorld();
    const ref = { platform_id: neverJoinedId(t.world) };
    await expect(t.call('players.unlink', { ref, actor: ACTOR })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('frees the social id for another player to link', async () => {
    const t = testWorld();
    const [first, second] = t.world.players.list.values().filter((p) => p.social_id === null);
    const social = freeSocialId(t.world);
    await t.call('players.link', { platform_id: first!.platform_id, social_id: social, actor: ACTOR });
    await t.call('players.unlink', { ref: { social_id: social }, actor: ACTOR });
    const result = await t.call('players.link', {
      platform_id: second!.platform_id,
      social_id: social,
      actor: ACTOR,
    });
    expect(result.player).toEqual({ platform_id: second!.platform_id, social_id: social });
  });
});
