import { describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import {
  ACTOR,
  BANNED_BY,
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  banArgs,
  cleanPlayer,
  freeSocialId,
  iso,
  neverJoinedId,
  testWorld,
} from './players-support.ts';

const ref = (player: Player) => ({ platform_id: player.platform_id });

describe('players.ban and players.unban', () => {
  it('bans a player who is not banned and logs the ban (not banned → banned)', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const before = t.world.players.violations(player).length;
    const state = await t.call('players.ban', banArgs(ref(player), { reason: 'Duping' }));
    expect(state).toEqual({
      player: { platform_id: player.platform_id, social_id: player.social_id },
      ban: {
        banned: true,
        reason: 'Duping',
        permanent: false,
        expires_at: iso(t.now() + 2 * HOUR_MS),
        banned_at: iso(t.now()),
        banned_by: BANNED_BY,
      },
      mute: player.moderation.mute,
    });
    expect(await t.call('players.moderation', { ref: ref(player) })).toEqual(state);
    const history = t.world.players.violations(player).values();
    expect(history).toHaveLength(before + 1);
    expect(history[0]).toMatchObject({
      type: 'ban',
      action: 'tempban',
      source: 'api',
      reason: 'Duping',
      issued_by: BANNED_BY,
      applied_at: iso(t.now()),
      expires_at: iso(t.now() + 2 * HOUR_MS),
      duration_sec: 2 * 3600,
      metadata: { squad_ban: false },
    });
  });

  it('keeps the exact duration of each unit, a month being 30 days', async () => {
    const t = testWorld();
    const units = [
      ['minutes', 90, 90 * MINUTE_MS],
      ['minutes', 1, MINUTE_MS],
      ['hours', 5, 5 * HOUR_MS],
      ['days', 3, 3 * DAY_MS],
      ['months', 2, 60 * DAY_MS],
      ['months', 120, 3_600 * DAY_MS],
    ] as const;
    for (const [unit, duration, ms] of units) {
      const player = cleanPlayer(t.world);
      const state = await t.call('players.ban', banArgs(ref(player), { duration, duration_unit: unit }));
      expect(state.ban.expires_at).toBe(iso(t.now() + ms));
      expect(state.ban.permanent).toBe(false);
      expect(t.world.players.violations(player).values()[0]!.duration_sec).toBe(ms / 1000);
    }
  });

  it('bans permanently, ignoring any duration', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const state = await t.call('players.ban', banArgs(ref(player), { permanent: true, duration: 5 }));
    expect(state.ban).toMatchObject({
      banned: true,
      permanent: true,
      expires_at: null,
      banned_at: iso(t.now()),
    });
    expect(t.world.players.violations(player).values()[0]).toMatchObject({
      action: 'ban',
      expires_at: null,
      duration_sec: 0,
    });
  });

  it('rejects a missing duration and a duration over its unit cap as invalid, banning nobody', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    for (const over of [
      { duration: null },
      { duration: 121, duration_unit: 'months' as const },
      { duration: 3_651, duration_unit: 'days' as const },
      { duration: 87_601, duration_unit: 'hours' as const },
      { duration: 5_256_001, duration_unit: 'minutes' as const },
    ]) {
      await expect(t.call('players.ban', banArgs(ref(player), over))).rejects.toMatchObject({
        code: 'invalid',
      });
    }
    expect(player.moderation.ban.banned).toBe(false);
  });

  it('converges when the same ban is sent again: same state, one log entry (banned → banned)', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const first = await t.call('players.ban', banArgs(ref(player)));
    const logged = t.world.players.violations(player).length;
    t.advance(10 * MINUTE_MS);
    expect(await t.call('players.ban', banArgs(ref(player)))).toEqual(first);
    expect(t.world.players.violations(player).length).toBe(logged);
  });

  it('replaces a ban when the request differs, and logs the new one', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    await t.call('players.ban', banArgs(ref(player)));
    const logged = t.world.players.violations(player).length;
    t.advance(MINUTE_MS);
    const state = await t.call('players.ban', banArgs(ref(player), { permanent: true, reason: 'Cheating' }));
    expect(state.ban).toMatchObject({ permanent: true, reason: 'Cheating', banned_at: iso(t.now()) });
    expect(t.world.players.violations(player).length).toBe(logged + 1);
  });

  it('unbans a banned player and logs the unban (banned → not banned)', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world, (p) => p.social_id !== null);
    await t.call('players.ban', banArgs(ref(player)));
    t.advance(MINUTE_MS);
    const state = await t.call('players.unban', { ref: { social_id: player.social_id! }, actor: ACTOR });
    expect(state.ban).toEqual({
      banned: false,
      reason: '',
      permanent: false,
      expires_at: null,
      banned_at: null,
      banned_by: null,
    });
    expect(t.world.players.violations(player).values()[0]).toMatchObject({
      type: 'ban',
      action: 'unban',
      source: 'api',
      issued_by: BANNED_BY,
      applied_at: iso(t.now()),
      expires_at: null,
      duration_sec: 0,
    });
  });

  it('succeeds without logging when unbanning a player who is not banned', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const logged = t.world.players.violations(player).length;
    const first = await t.call('players.unban', { ref: ref(player), actor: ACTOR });
    expect(first.ban.banned).toBe(false);
    expect(await t.call('players.unban', { ref: ref(player), actor: ACTOR })).toEqual(first);
    expect(t.world.players.violations(player).length).toBe(logged);
  });

  it('reads a temporary ban as lifted once its time has run out, without logging', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    await t.call('players.ban', banArgs(ref(player), { duration: 1, duration_unit: 'hours' }));
    const logged = t.world.players.violations(player).length;
    t.advance(HOUR_MS - 1_000);
    expect((await t.call('players.moderation', { ref: ref(player) })).ban.banned).toBe(true);
    t.advance(1_000);
    expect((await t.call('players.moderation', { ref: ref(player) })).ban.banned).toBe(false);
    await t.call('players.unban', { ref: ref(player), actor: ACTOR });
    expect(t.world.players.violations(player).length).toBe(logged);
  });

  it('attributes a ban to a key owner without a platform identity', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    const actor = { key_id: 'k2', name: 'Panel key', platform_id: null, social_id: null };
    const state = await t.call('players.ban', banArgs(ref(player), { actor }));
    expect(state.ban.banned_by).toEqual({ platform_id: null, social_id: null, name: 'Panel key' });
  });

  it('answers not_found for a social id linked to nobody', async () => {
    const t = testWorld();
    const social = { social_id: freeSocialId(t.world) };
    await expect(t.call('players.ban', banArgs(social))).rejects.toMatchObject({ code: 'not_found' });
    await expect(t.call('players.unban', { ref: social, actor: ACTOR })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('banning a platform id that never joined', () => {
  it('puts it on the moderation list, which the moderation and violation reads then answer', async () => {
    const t = testWorld();
    const id = neverJoinedId(t.world);
    await expect(t.call('players.moderation', { ref: { platform_id: id } })).rejects.toMatchObject({
      code: 'not_found',
    });
    const state = await t.call('players.ban', banArgs({ platform_id: id }, { permanent: true }));
    expect(state.player).toEqual({ platform_id: id, social_id: null });
    expect(state.ban).toMatchObject({ banned: true, permanent: true, banned_by: BANNED_BY });
    expect(state.mute.muted).toBe(false);
    expect(await t.call('players.moderation', { ref: { platform_id: id } })).toEqual(state);
    const history = await t.call('players.violations', { ref: { platform_id: id }, after: null, limit: 10 });
    expect(history.data.map((v) => v.action)).toEqual(['ban']);
    await expect(t.call('players.get', { ref: { platform_id: id } })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('lifts it on unban and keeps the history', async () => {
    const t = testWorld();
    const id = neverJoinedId(t.world);
    await t.call('players.ban', banArgs({ platform_id: id }));
    const state = await t.call('players.unban', { ref: { platform_id: id }, actor: ACTOR });
    expect(state.ban.banned).toBe(false);
    expect((await t.call('players.moderation', { ref: { platform_id: id } })).ban.banned).toBe(false);
    const history = await t.call('players.violations', { ref: { platform_id: id }, after: null, limit: 10 });
    expect(history.data.map((v) => v.action)).toEqual(['unban', 'tempban']);
  });

  it('succeeds unbanning an id the game has never seen, leaving no record', async () => {
    const t = testWorld();
    const id = neverJoinedId(t.world, 2);
    const state = await t.call('players.unban', { ref: { platform_id: id }, actor: ACTOR });
    expect(state.player).toEqual({ platform_id: id, social_id: null });
    expect(state.ban.banned).toBe(false);
    await expect(t.call('players.moderation', { ref: { platform_id: id } })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('squad bans', () => {
  it('bans every member of the squad along with the player', async () => {
    const t = testWorld({ players: 200 });
    const squad = t.world.squads.values().find((s) => s.members.length >= 3)!;
    const outsider = cleanPlayer(t.world, (p) => p.squad === null);
    const state = await t.call('players.ban', banArgs(ref(outsider), { squad_id: String(squad.id) }));
    expect(state.ban.banned).toBe(true);
    for (const { player } of [...squad.members, { player: outsider }]) {
      const member = await t.call('players.moderation', { ref: ref(player) });
      expect(member.ban).toEqual(state.ban);
      expect(t.world.players.violations(player).values()[0]!.metadata).toEqual({
        squad_ban: true,
        squad_id: squad.id,
      });
    }
  });

  it('answers not_found for an unknown squad and bans nobody', async () => {
    const t = testWorld();
    const player = cleanPlayer(t.world);
    for (const squadId of ['999999', '123456789012345678901'.slice(0, 20)]) {
      await expect(t.call('players.ban', banArgs(ref(player), { squad_id: squadId }))).rejects.toMatchObject({
        code: 'not_found',
      });
    }
    expect(player.moderation.ban.banned).toBe(false);
  });
});
