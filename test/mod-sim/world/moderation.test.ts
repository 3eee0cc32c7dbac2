import { describe, expect, it } from 'vitest';
import { MUTE_CHANNELS, isoDateTime, moderationState } from '../../../mod-sim/world/index.ts';
import { sharedWorld } from './fixture.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('moderation', () => {
  const world = sharedWorld({ players: 2_000 });
  const players = world.players.list.values();
  const now = isoDateTime(world.generatedAt);
  const banned = players.filter((p) => p.moderation.ban.banned);
  const muted = players.filter((p) => p.moderation.mute.muted);

  it('bans a few percent of players, never one who is online', () => {
    expect(banned.length / players.length).toBeGreaterThan(0.01);
    expect(banned.length / players.length).toBeLessThan(0.06);
    for (const player of banned) expect(player.online).toBe(false);
  });

  it('describes a running ban: reason, start, moderator, and an expiry unless permanent', () => {
    for (const { moderation } of banned) {
      const ban = moderation.ban;
      expect(ban.reason.length).toBeGreaterThan(0);
      expect(ban.banned_at).toMatch(ISO);
      expect(ban.banned_by).not.toBeNull();
      if (ban.permanent) expect(ban.expires_at).toBeNull();
      else expect(ban.expires_at! > now).toBe(true);
    }
    expect(banned.some((p) => p.moderation.ban.permanent)).toBe(true);
    expect(banned.some((p) => p.moderation.ban.banned_by?.platform_id === null)).toBe(true);
  });

  it('mutes for whole hours on known channels', () => {
    expect(muted.length).toBeGreaterThan(0);
    for (const { moderation } of muted) {
      const mute = moderation.mute;
      expect(mute.muted_at).toMatch(ISO);
      expect(mute.channels.length).toBeGreaterThan(0);
      for (const channel of mute.channels) expect(MUTE_CHANNELS).toContain(channel);
      if (mute.permanent) expect(mute.duration_minutes).toBeNull();
      else expect(mute.duration_minutes! % 60).toBe(0);
    }
  });

  it('leaves everyone else in the clean state with nulls, not missing fields', () => {
    const clean = players.find((p) => !p.moderation.ban.banned && !p.moderation.mute.muted)!;
    expect(moderationState(clean)).toEqual({
      player: { platform_id: clean.platform_id, social_id: clean.social_id },
      ban: {
        banned: false,
        reason: '',
        permanent: false,
        expires_at: null,
        banned_at: null,
        banned_by: null,
      },
      mute: { muted: false, permanent: false, muted_at: null, duration_minutes: null, channels: [] },
    });
  });

  it('keeps the shared clean states frozen so nobody edits them in place', () => {
    const clean = players.find((p) => !p.moderation.ban.banned)!;
    expect(Object.isFrozen(clean.moderation.ban)).toBe(true);
    expect(() => {
      (clean.moderation.ban as { banned: boolean }).banned = true;
    }).toThrow(TypeError);
  });

  it('records each current ban as the newest ban in the violation history', () => {
    for (const player of banned) {
      const ban = world.players
        .violations(player)
        .values()
        .find((v) => v.type === 'ban')!;
      expect(ban.applied_at).toBe(player.moderation.ban.banned_at);
      expect(ban.expires_at).toBe(player.moderation.ban.expires_at);
      expect(ban.reason).toBe(player.moderation.ban.reason);
      expect(ban.issued_by).toBe(player.moderation.ban.banned_by);
    }
  });

  it('keeps histories newest first with unique ids, covering bans, mutes and traps', () => {
    const all = players.flatMap((p) => world.players.violations(p).values());
    expect(new Set(all.map((v) => v.id)).size).toBe(all.length);
    expect(new Set(all.map((v) => v.type))).toEqual(new Set(['ban', 'mute', 'trap']));
    for (const player of players) {
      const list = world.players.violations(player).values();
      for (let i = 1; i < list.length; i++) {
        expect(list[i - 1]!.id).toBeGreaterThan(list[i]!.id);
        expect(list[i - 1]!.applied_at >= list[i]!.applied_at).toBe(true);
      }
    }
    for (const mute of all.filter((v) => v.type === 'mute'))
      expect(MUTE_CHANNELS).toContain(mute.metadata.channel);
  });

  it('lists IP addresses newest first, the first being current', () => {
    for (const player of players.slice(0, 300)) {
      const ips = world.players.ipHistory(player);
      expect(ips.history.length).toBeGreaterThan(0);
      expect(ips.current_ip).toBe(ips.history[0]!.ip);
      for (let i = 0; i < ips.history.length; i++) {
        const entry = ips.history[i]!;
        expect(entry.first_seen <= entry.last_seen).toBe(true);
        if (i > 0) expect(ips.history[i - 1]!.first_seen >= entry.last_seen).toBe(true);
      }
    }
  });
});
