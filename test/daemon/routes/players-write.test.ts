import { beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import { suiteStack } from '../../support/suite.ts';

type State = {
  player: { platform_id: string; social_id: string | null };
  ban: {
    banned: boolean;
    reason: string;
    permanent: boolean;
    expires_at: string | null;
    banned_at: string | null;
    banned_by: unknown;
  };
  mute: { muted: boolean; duration_minutes: number | null; channels: string[]; permanent: boolean };
};
const OWNER = { platform_id: '76561190000000042', social_id: '112233445566778899' };
const NEVER_JOINED = '76561199999999998';

function errorOf(json: unknown) {
  return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

describe('player writes', () => {
  const stack = suiteStack();
  let players: readonly Player[];
  let modKey: string;
  const json = (body: unknown) => ({
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
    stack.call(path, {
      method: 'POST',
      ...json(body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${modKey}`, ...extra },
    });
  const del = (path: string, extra: Record<string, string> = {}) =>
    stack.call(path, { method: 'DELETE', headers: { authorization: `Bearer ${modKey}`, ...extra } });
  /** The n-th player with a clean record: the seeded world has players already banned or muted. */
  const pick = (n: number) =>
    players.filter((p) => !p.moderation.ban.banned && !p.moderation.mute.muted)[n] as Player;

  beforeAll(async () => {
    players = stack.sim!.world.players.list.values();
    modKey = (
      await stack.data.createKey(
        '--name',
        'mod-bot',
        '--owner-platform-id',
        OWNER.platform_id,
        '--owner-social-id',
        OWNER.social_id,
      )
    ).key;
  });

  describe('ban', () => {
    it('bans for exactly the duration asked, attributed to the key', async () => {
      const target = pick(10);
      const res = await post(`/v1/players/${target.platform_id}/ban`, {
        duration: 90,
        duration_unit: 'minutes',
        reason: 'griefing',
      });
      expect(res.status).toBe(200);
      const state = res.json as State;
      expect(state.ban).toMatchObject({ banned: true, reason: 'griefing', permanent: false });
      expect(Date.parse(state.ban.expires_at!) - Date.parse(state.ban.banned_at!)).toBe(90 * 60_000);
      expect(state.ban.banned_by).toEqual({ ...OWNER, name: 'mod-bot' });
    });

    it('records the ban in the violation history, attributed to the key', async () => {
      const target = pick(11);
      await post(`/v1/players/${target.platform_id}/ban`, { permanent: true });
      const history = (await stack.call(`/v1/players/${target.platform_id}/violations?limit=1`)).json as {
        data: Array<{ type: string; issued_by: unknown; reason: string }>;
      };
      expect(history.data[0]).toMatchObject({
        type: 'ban',
        issued_by: { ...OWNER, name: 'mod-bot' },
        reason: 'No reason provided',
      });
    });

    it('uses the default reason and hours by default', async () => {
      const state = (await post(`/v1/players/${pick(12).platform_id}/ban`, { duration: 2 })).json as State;
      expect(state.ban.reason).toBe('No reason provided');
      expect(Date.parse(state.ban.expires_at!) - Date.parse(state.ban.banned_at!)).toBe(2 * 3_600_000);
    });

    it('accepts a well-formed platform id that never joined', async () => {
      const res = await post(`/v1/players/${NEVER_JOINED}/ban`, { permanent: true });
      expect(res.status).toBe(200);
      expect((res.json as State).ban.banned).toBe(true);
    });

    it('converges on the same state when the same ban is sent again, and unban is idempotent', async () => {
      const path = `/v1/players/${pick(13).platform_id}/ban`;
      const first = (await post(path, { permanent: true, reason: 'x' })).json as State;
      const second = (await post(path, { permanent: true, reason: 'x' })).json as State;
      expect(second.ban).toMatchObject({ banned: first.ban.banned, permanent: true, reason: 'x' });
      expect(((await del(path)).json as State).ban.banned).toBe(false);
      const again = await del(path);
      expect(again.status).toBe(200);
      expect((again.json as State).ban.banned).toBe(false);
    });

    it.each([
      ['neither duration nor permanent', {}],
      ['a duration of 0', { duration: 0 }],
      ['a fractional duration', { duration: 1.5 }],
      ['minutes over the cap', { duration: 5_256_001, duration_unit: 'minutes' }],
      ['hours over the cap', { duration: 87_601 }],
      ['days over the cap', { duration: 3_651, duration_unit: 'days' }],
      ['months over the cap', { duration: 121, duration_unit: 'months' }],
      ['an unknown unit', { duration: 1, duration_unit: 'weeks' }],
      ['squad_ban without squad_id', { permanent: true, squad_ban: true }],
      ['an empty reason', { permanent: true, reason: '' }],
      ['an unknown field', { permanent: true, until: 'tomorrow' }],
    ])('refuses %s with 400', async (_what, body) => {
      const res = await post(`/v1/players/${pick(14).platform_id}/ban`, body);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });

    it.each([
      ['minutes', 5_256_000],
      ['hours', 87_600],
      ['days', 3_650],
      ['months', 120],
    ])('accepts the cap of %s exactly', async (unit, cap) => {
      expect(
        (await post(`/v1/players/${pick(15).platform_id}/ban`, { duration: cap, duration_unit: unit }))
          .status,
      ).toBe(200);
    });

    it('needs players:ban', async () => {
      const { key } = await stack.data.createKey('--name', 'muter', '--scopes', 'players:mute');
      const res = await post(
        `/v1/players/${pick(16).platform_id}/ban`,
        { permanent: true },
        { authorization: `Bearer ${key}` },
      );
      expect(errorOf(res.json).details).toEqual({ missing_scope: 'players:ban' });
    });
  });

  describe('mute', () => {
    it('rounds a temporary mute up to whole hours, as the game does', async () => {
      const state = (
        await post(`/v1/players/${pick(20).platform_id}/mute`, { duration: 90, duration_unit: 'minutes' })
      ).json as State;
      expect(state.mute).toMatchObject({
        muted: true,
        duration_minutes: 120,
        channels: ['Global', 'Local', 'Squad'],
      });
    });

    it('mutes only the channels asked for', async () => {
      const state = (
        await post(`/v1/players/${pick(21).platform_id}/mute`, { duration: 1, channels: ['Local'] })
      ).json as State;
      expect(state.mute).toMatchObject({ duration_minutes: 60, channels: ['Local'] });
    });

    it.each([
      ['months', { duration: 1, duration_unit: 'months' }],
      ['a channel outside Global/Local/Squad', { duration: 1, channels: ['Trade'] }],
      ['no channel at all', { duration: 1, channels: [] }],
      ['squad_ban, which only bans take', { duration: 1, squad_ban: true }],
    ])('refuses %s with 400', async (_what, body) => {
      expect((await post(`/v1/players/${pick(22).platform_id}/mute`, body)).status).toBe(400);
    });

    it('unmutes idempotently', async () => {
      const path = `/v1/players/${pick(23).platform_id}/mute`;
      await post(path, { permanent: true });
      expect(((await del(path)).json as State).mute.muted).toBe(false);
      expect((await del(path)).status).toBe(200);
    });
  });

  describe('If-Match', () => {
    it('applies the write when the ETag matches, and refuses a stale one with 412, changing nothing', async () => {
      const path = `/v1/players/${pick(30).platform_id}`;
      const etag = (await stack.call(`${path}/moderation`)).headers['etag'] as string;
      expect((await post(`${path}/mute`, { duration: 1 }, { 'if-match': etag })).status).toBe(200);
      const before = (await stack.call(`${path}/moderation`)).json;
      const stale = await post(`${path}/ban`, { permanent: true }, { 'if-match': etag });
      expect(stale.status).toBe(412);
      expect(errorOf(stale.json).code).toBe('precondition_failed');
      expect((await stack.call(`${path}/moderation`)).json).toEqual(before);
    });

    it('never matches a weak tag', async () => {
      const path = `/v1/players/${pick(31).platform_id}`;
      const etag = (await stack.call(`${path}/moderation`)).headers['etag'] as string;
      expect((await del(`${path}/ban`, { 'if-match': `W/${etag}` })).status).toBe(412);
      expect((await del(`${path}/ban`, { 'if-match': etag })).status).toBe(200);
    });
  });

  it('shows a write on the next read at once, cache or not', async () => {
    const path = `/v1/players/${pick(40).platform_id}`;
    expect(((await stack.call(`${path}/moderation`)).json as State).ban.banned).toBe(false);
    await post(`${path}/ban`, { permanent: true });
    expect(((await stack.call(`${path}/moderation`)).json as State).ban.banned).toBe(true);
  });

  describe('social link', () => {
    it('links, refuses a second link of either side with 409, and unlinks by platform idempotently', async () => {
      const a = players.find((p, i) => i > 50 && p.social_id === null) as Player;
      const b = players.find((p, i) => i > 60 && p.social_id === null && p !== a) as Player;
      const socialId = '98765432109876543210';
      const linked = await post(`/v1/players/${a.platform_id}/social`, { social_id: socialId });
      expect(linked.status).toBe(200);
      expect(linked.json).toEqual({ player: { platform_id: a.platform_id, social_id: socialId } });
      expect((await stack.call(`/v1/players/social:${socialId}`)).status).toBe(200);
      expect(
        errorOf((await post(`/v1/players/${a.platform_id}/social`, { social_id: '11111111111111111' })).json)
          .code,
      ).toBe('conflict');
      expect((await post(`/v1/players/${b.platform_id}/social`, { social_id: socialId })).status).toBe(409);
      for (let i = 0; i < 2; i++) {
        const res = await del(`/v1/players/${a.platform_id}/social`);
        expect(res.status).toBe(200);
        expect(res.json).toEqual({ player: { platform_id: a.platform_id, social_id: null } });
      }
    });

    it('unlinks by social: ref once, then answers 404 because the id no longer resolves', async () => {
      const target = players.find((p, i) => i > 100 && p.social_id !== null) as Player;
      const ref = `social:${target.social_id}`;
      expect((await del(`/v1/players/${ref}/social`)).status).toBe(200);
      expect((await del(`/v1/players/${ref}/social`)).status).toBe(404);
    });

    it('answers 404 when the platform id never joined', async () => {
      expect(
        (await post(`/v1/players/${NEVER_JOINED}/social`, { social_id: '12345678901234567' })).status,
      ).toBe(404);
    });

    it.each([
      ['a social: ref on the link route', 'social:12345678901234567', { social_id: '12345678901234568' }],
      ['a malformed social id', null, { social_id: '123' }],
      ['a numeric social id', null, { social_id: 123456789012345 }],
      ['no social id', null, {}],
    ])('refuses %s with 400', async (_what, ref, body) => {
      const target = ref ?? (players.find((p) => p.social_id === null) as Player).platform_id;
      expect((await post(`/v1/players/${target}/social`, body)).status).toBe(400);
    });
  });
});
