/**
 * Moderation and social-link writes through the real HTTP listener against the real simulator,
 * as docs/players.md#players-who-never-joined words them: mute accepts a platform id that never joined ("as ban"), a link needs
 * a player who has joined (a record is not a join), and `permanent: true` ignores `duration`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../mod-sim/world/index.ts';
import { errorOf, http } from '../support/http.ts';
import { suiteStack } from '../support/suite.ts';

interface State {
  player: { platform_id: string; social_id: string | null };
  ban: { banned: boolean; permanent: boolean; expires_at: string | null };
  mute: { muted: boolean; permanent: boolean; duration_minutes: number | null; channels: string[] };
}

describe('player writes over HTTP', () => {
  const stack = suiteStack();
  let clean: Player[];
  let next = 0;
  /** A player with neither a ban nor a mute, a different one each call. */
  const cleanPlayer = () => clean[next++] as Player;

  beforeAll(async () => {
    clean = stack
      .sim!.world.players.list.values()
      .filter((p) => !p.moderation.ban.banned && !p.moderation.mute.muted);
  });

  describe('mute of a platform id that never joined', () => {
    const id = '76561199999999944';

    it('mutes it, reads it back, and unmutes it, as ban and unban do', async () => {
      const muted = await http(stack, `/v1/players/${id}/mute`, {
        method: 'POST',
        body: { permanent: true },
      });
      expect(muted.status).toBe(200);
      expect(muted.json).toMatchObject({
        player: { platform_id: id, social_id: null },
        mute: { muted: true, permanent: true, channels: ['Global', 'Local', 'Squad'] },
      });
      const read = await http(stack, `/v1/players/${id}/moderation`);
      expect((read.json as State).mute.muted).toBe(true);
      const unmuted = await http(stack, `/v1/players/${id}/mute`, { method: 'DELETE' });
      expect(unmuted.status).toBe(200);
      expect((unmuted.json as State).mute.muted).toBe(false);
    });

    it('unmutes an id the game has never seen at all, idempotently', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await http(stack, '/v1/players/76561199999999945/mute', { method: 'DELETE' });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({
          player: { platform_id: '76561199999999945' },
          mute: { muted: false },
        });
      }
    });

    it('still answers 404 for a social: ref linked to nobody', async () => {
      const ref = 'social:99999999999999999';
      const post = await http(stack, `/v1/players/${ref}/mute`, {
        method: 'POST',
        body: { permanent: true },
      });
      const del = await http(stack, `/v1/players/${ref}/mute`, { method: 'DELETE' });
      expect([post.status, errorOf(post.json).code, del.status]).toEqual([404, 'not_found', 404]);
    });
  });

  describe('link of a player who never joined', () => {
    it('answers 404 for an id that only has a record from a coin credit, and links nothing', async () => {
      const id = '76561199999999903';
      const credit = await http(stack, `/v1/players/${id}/coins`, {
        method: 'POST',
        body: { amount: 10, reason: 'welcome gift' },
      });
      expect(credit.status).toBe(200);
      const profile = await http(stack, `/v1/players/${id}`);
      expect(profile.json).toMatchObject({ platform_id: id, platform_name: '', play_time: 0 });
      const link = await http(stack, `/v1/players/${id}/social`, {
        method: 'POST',
        body: { social_id: '66666666666666666' },
      });
      expect(link.status).toBe(404);
      expect(errorOf(link.json).code).toBe('not_found');
      const after = await http(stack, '/v1/players?social_id=66666666666666666');
      expect((after.json as { total: number }).total).toBe(0);
    });

    it('answers 404 for an id the game has never seen', async () => {
      const link = await http(stack, '/v1/players/76561199999999904/social', {
        method: 'POST',
        body: { social_id: '66666666666666667' },
      });
      expect([link.status, errorOf(link.json).code]).toEqual([404, 'not_found']);
    });
  });

  describe('permanent: true ignores duration', () => {
    const ignored: Array<[string, unknown]> = [
      ['0', 0],
      ['-5', -5],
      ['null', null],
      ['a fraction', 1.5],
      ['a string', 'forever'],
      ['an object', { months: 2 }],
      ['a value over every cap', 1e12],
    ];

    it.each(ignored)('bans permanently when duration is %s', async (_name, duration) => {
      const target = cleanPlayer();
      const res = await http(stack, `/v1/players/${target.platform_id}/ban`, {
        method: 'POST',
        body: { permanent: true, duration },
      });
      expect(res.status).toBe(200);
      expect((res.json as State).ban).toMatchObject({ banned: true, permanent: true, expires_at: null });
    });

    it.each(ignored)('mutes permanently when duration is %s', async (_name, duration) => {
      const target = cleanPlayer();
      const res = await http(stack, `/v1/players/${target.platform_id}/mute`, {
        method: 'POST',
        body: { permanent: true, duration, duration_unit: 'minutes' },
      });
      expect(res.status).toBe(200);
      expect((res.json as State).mute).toMatchObject({
        muted: true,
        permanent: true,
        duration_minutes: null,
      });
    });

    it('replays a keyed retry that differs only in the ignored duration, instead of a conflict', async () => {
      const target = cleanPlayer();
      const path = `/v1/players/${target.platform_id}/ban`;
      const headers = { 'idempotency-key': 'ban-ignoring-duration' };
      const first = await http(stack, path, {
        method: 'POST',
        headers,
        body: { permanent: true, duration: 0 },
      });
      const retry = await http(stack, path, { method: 'POST', headers, body: { permanent: true } });
      expect([first.status, retry.status]).toEqual([200, 200]);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    });

    it('still checks duration_unit, and still needs a valid duration without permanent', async () => {
      const target = cleanPlayer().platform_id;
      const months = await http(stack, `/v1/players/${target}/mute`, {
        method: 'POST',
        body: { permanent: true, duration_unit: 'months' },
      });
      const zero = await http(stack, `/v1/players/${target}/ban`, {
        method: 'POST',
        body: { permanent: false, duration: 0 },
      });
      expect([months.status, zero.status]).toEqual([400, 400]);
      expect(errorOf(zero.json).code).toBe('validation_error');
      const state = await http(stack, `/v1/players/${target}/moderation`);
      expect(state.json).toMatchObject({ ban: { banned: false }, mute: { muted: false } });
    });
  });
});
