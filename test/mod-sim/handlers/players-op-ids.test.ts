import { describe, expect, it } from 'vitest';
import { OPS } from '../../../protocol/ops/index.ts';
import { playerHandlers } from '../../../mod-sim/handlers/players.ts';
import {
  ACTOR,
  MINUTE_MS,
  banArgs,
  cleanPlayer,
  find,
  freeSocialId,
  muteArgs,
  testWorld,
} from './players-support.ts';

describe('op id deduplication', () => {
  it('answers a repeated ban op id with the first result and applies it once', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const ref = { platform_id: player.platform_id };
    const first = await t.call('players.ban', banArgs(ref), 'op-1');
    const logged = t.world.players.violations(player).length;
    t.advance(MINUTE_MS);
    await t.call('players.unban', { ref, actor: ACTOR });
    const retry = await t.call('players.ban', banArgs(ref), 'op-1');
    expect(retry).toEqual(first);
    expect(player.moderation.ban.banned).toBe(false);
    expect(t.world.players.violations(player).length).toBe(logged + 1); // the unban only
  });

  it('applies the same request again under a new op id or without one', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const ref = { platform_id: player.platform_id };
    await t.call('players.mute', muteArgs(ref), 'op-a');
    await t.call('players.unmute', { ref, actor: ACTOR }, 'op-b');
    await t.call('players.mute', muteArgs(ref), 'op-c');
    expect(player.moderation.mute.muted).toBe(true);
    await t.call('players.unmute', { ref, actor: ACTOR });
    expect(player.moderation.mute.muted).toBe(false);
  });

  it('replays the result as it was, even after the world changed the objects in it', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id === null);
    const args = { platform_id: player.platform_id, social_id: freeSocialId(t.world), actor: ACTOR };
    const first = await t.call('players.link', args, 'link-1');
    await t.call('players.unlink', { ref: { platform_id: player.platform_id }, actor: ACTOR });
    expect(await t.call('players.link', args, 'link-1')).toEqual(first);
    expect(player.social_id).toBeNull();
  });

  it('records nothing for a failed write, so its retry is evaluated again', async () => {
    const t = testWorld();
    const player = find(t.world, (p) => p.social_id !== null);
    const args = { platform_id: player.platform_id, social_id: freeSocialId(t.world), actor: ACTOR };
    await expect(t.call('players.link', args, 'link-2')).rejects.toMatchObject({ code: 'conflict' });
    await t.call('players.unlink', { ref: { platform_id: player.platform_id }, actor: ACTOR });
    expect(await t.call('players.link', args, 'link-2')).toEqual({
      player: { platform_id: args.platform_id, social_id: args.social_id },
    });
  });

  it('answers conflict when an op id already applied comes back for another op', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const ref = { platform_id: player.platform_id };
    await t.call('players.ban', banArgs(ref), 'op-x');
    await expect(t.call('players.mute', muteArgs(ref), 'op-x')).rejects.toMatchObject({ code: 'conflict' });
    expect(player.moderation.mute.muted).toBe(false);
  });

  it('shares the memory between handler sets of one world, as a reconnect would', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const args = OPS['players.ban'].args.parse(banArgs({ platform_id: player.platform_id }));
    const ctx = { opId: 'op-shared', signal: new AbortController().signal, applied: () => {} };
    const first = await playerHandlers(t.world)['players.ban'](args, ctx);
    const logged = t.world.players.violations(player).length;
    expect(await playerHandlers(t.world)['players.ban'](args, ctx)).toEqual(first);
    expect(t.world.players.violations(player).length).toBe(logged);
  });
});
