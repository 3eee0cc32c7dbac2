import { describe, expect, it } from 'vitest';
import { roundMuteMinutes } from '../../../mod-sim/handlers/players-durations.ts';
import type { Player } from '../../../mod-sim/world/index.ts';
import {
  ACTOR,
  BANNED_BY,
  HOUR_MS,
  MINUTE_MS,
  cleanPlayer,
  freeSocialId,
  iso,
  muteArgs,
  neverJoinedId,
  testWorld,
} from './players-support.ts';

const ref = (player: Player) => ({ platform_id: player.platform_id });

describe('mute rounding', () => {
  const table = [
    ['minutes', 1, 60],
    ['minutes', 59, 60],
    ['minutes', 60, 60],
    ['minutes', 61, 120],
    ['minutes', 90, 120],
    ['minutes', 120, 120],
    ['minutes', 5_256_000, 5_256_000],
    ['hours', 1, 60],
    ['hours', 2, 120],
    ['days', 1, 1_440],
    ['days', 3_650, 5_256_000],
  ] as const;

  for (const [unit, duration, minutes] of table) {
    it(`mutes for ${minutes} minutes when asked for ${duration} ${unit}`, async () => {
      const t = testWorld({ players: 30 });
      const player = cleanPlayer(t.world);
      const state = await t.call('players.mute', muteArgs(ref(player), { duration, duration_unit: unit }));
      expect(state.mute.duration_minutes).toBe(minutes);
      const entry = t.world.players.violations(player).values()[0]!;
      expect(entry.duration_sec).toBe(minutes * 60);
      expect(entry.expires_at).toBe(iso(t.now() + minutes * MINUTE_MS));
    });
  }

  it('rounds up to whole hours and never down', () => {
    for (let minutes = 1; minutes <= 600; minutes++) {
      const rounded = roundMuteMinutes(minutes);
      expect(rounded % 60).toBe(0);
      expect(rounded - minutes).toBeGreaterThanOrEqual(0);
      expect(rounded - minutes).toBeLessThan(60);
    }
  });
});

describe('players.mute and players.unmute', () => {
  it('mutes a player on the given channels and logs each channel (not muted → muted)', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const before = t.world.players.violations(player).length;
    const state = await t.call('players.mute', muteArgs(ref(player), { channels: ['Squad', 'Global'] }));
    expect(state.mute).toEqual({
      muted: true,
      permanent: false,
      muted_at: iso(t.now()),
      duration_minutes: 120,
      channels: ['Squad', 'Global'],
    });
    expect(state.ban.banned).toBe(false);
    const logged = t.world.players.violations(player).values().slice(0, 2);
    expect(t.world.players.violations(player).length).toBe(before + 2);
    expect(logged.map((v) => v.metadata)).toEqual([{ channel: 'Global' }, { channel: 'Squad' }]);
    for (const entry of logged) {
      expect(entry).toMatchObject({ type: 'mute', action: 'mute', source: 'api', reason: 'Spam' });
      expect(entry.issued_by).toEqual(BANNED_BY);
    }
  });

  it('mutes permanently with a null duration', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const state = await t.call('players.mute', muteArgs(ref(player), { permanent: true, duration: null }));
    expect(state.mute).toMatchObject({ muted: true, permanent: true, duration_minutes: null });
    expect(t.world.players.violations(player).values()[0]).toMatchObject({
      expires_at: null,
      duration_sec: 0,
    });
  });

  it('drops repeated channels', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const state = await t.call('players.mute', muteArgs(ref(player), { channels: ['Local', 'Local'] }));
    expect(state.mute.channels).toEqual(['Local']);
  });

  it('converges when the same mute is sent again: same state, no new log entries', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const first = await t.call('players.mute', muteArgs(ref(player)));
    const logged = t.world.players.violations(player).length;
    t.advance(5 * MINUTE_MS);
    expect(
      await t.call('players.mute', muteArgs(ref(player), { duration: 2, duration_unit: 'hours' })),
    ).toEqual(first);
    expect(t.world.players.violations(player).length).toBe(logged);
  });

  it('unmutes a muted player and logs each channel lifted (muted → not muted)', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world, (p) => p.social_id !== null);
    await t.call('players.mute', muteArgs(ref(player), { channels: ['Global', 'Local'] }));
    const logged = t.world.players.violations(player).length;
    const state = await t.call('players.unmute', { ref: { social_id: player.social_id! }, actor: ACTOR });
    expect(state.mute).toEqual({
      muted: false,
      permanent: false,
      muted_at: null,
      duration_minutes: null,
      channels: [],
    });
    const history = t.world.players.violations(player).values();
    expect(history.length).toBe(logged + 2);
    expect(history.slice(0, 2).map((v) => [v.action, v.metadata.channel])).toEqual([
      ['unmute', 'Local'],
      ['unmute', 'Global'],
    ]);
  });

  it('succeeds without logging when unmuting a player who is not muted', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const logged = t.world.players.violations(player).length;
    const first = await t.call('players.unmute', { ref: ref(player), actor: ACTOR });
    expect(await t.call('players.unmute', { ref: ref(player), actor: ACTOR })).toEqual(first);
    expect(first.mute.muted).toBe(false);
    expect(t.world.players.violations(player).length).toBe(logged);
  });

  it('reads a temporary mute as lifted once its rounded time has run out', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    await t.call('players.mute', muteArgs(ref(player), { duration: 1, duration_unit: 'minutes' }));
    t.advance(HOUR_MS - 1_000);
    expect((await t.call('players.moderation', { ref: ref(player) })).mute.muted).toBe(true);
    t.advance(1_000);
    expect((await t.call('players.moderation', { ref: ref(player) })).mute.muted).toBe(false);
  });

  it('rejects a missing duration and a duration over its unit cap as invalid', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    for (const over of [{ duration: null }, { duration: 3_651, duration_unit: 'days' as const }]) {
      await expect(t.call('players.mute', muteArgs(ref(player), over))).rejects.toMatchObject({
        code: 'invalid',
      });
    }
    expect(player.moderation.mute.muted).toBe(false);
  });

  it('answers not_found for an unlinked social id', async () => {
    const t = testWorld();
    const target = { social_id: freeSocialId(t.world) };
    await expect(t.call('players.mute', muteArgs(target))).rejects.toMatchObject({ code: 'not_found' });
    await expect(t.call('players.unmute', { ref: target, actor: ACTOR })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('muting a platform id that never joined', () => {
  it('puts it on the moderation list, which the moderation and violation reads then answer', async () => {
    const t = testWorld();
    const ref = { platform_id: neverJoinedId(t.world) };
    const state = await t.call('players.mute', muteArgs(ref, { permanent: true, duration: null }));
    expect(state.player).toEqual({ platform_id: ref.platform_id, social_id: null });
    expect(state.mute).toMatchObject({ muted: true, permanent: true });
    expect(state.ban.banned).toBe(false);
    expect(await t.call('players.moderation', { ref })).toEqual(state);
    const history = await t.call('players.violations', { ref, after: null, limit: 10 });
    expect(history.data.map((v) => v.action)).toEqual(['mute', 'mute', 'mute']);
  });

  it('lifts it on unmute, and an unmute of an id the game never saw succeeds and writes nothing', async () => {
    const t = testWorld();
    const ref = { platform_id: neverJoinedId(t.world) };
    const fresh = { platform_id: neverJoinedId(t.world, 2) };
    expect((await t.call('players.unmute', { ref: fresh, actor: ACTOR })).mute.muted).toBe(false);
    expect(t.world.players.moderationListed(fresh.platform_id)).toBeUndefined();
    await t.call('players.mute', muteArgs(ref));
    const state = await t.call('players.unmute', { ref, actor: ACTOR });
    expect(state.mute.muted).toBe(false);
    expect(await t.call('players.moderation', { ref })).toEqual(state);
  });
});
