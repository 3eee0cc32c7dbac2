import { beforeAll, describe, expect, it } from 'vitest';
import type { Player } from '../../../mod-sim/world/index.ts';
import { ROSTER_KEYS } from '../../support/roster.ts';
import { suiteStack } from '../../support/suite.ts';

type Page = {
  data: Array<Record<string, unknown>>;
  has_more: boolean;
  next_cursor: string | null;
  total?: number;
};

function errorOf(json: unknown) {
  return (json as { error: { code: string; details?: Record<string, unknown> } }).error;
}

describe('player reads', () => {
  const stack = suiteStack();
  let players: readonly Player[];
  let linked: Player;
  let unlinked: Player;

  beforeAll(async () => {
    players = stack.sim!.world.players.list.values();
    linked = players.find((p) => p.social_id !== null) as Player;
    unlinked = players.find((p) => p.social_id === null) as Player;
  });

  describe('GET /v1/players', () => {
    it('answers the collection envelope with total and roster rows carrying every key', async () => {
      const res = await stack.call('/v1/players');
      expect(res.status).toBe(200);
      const page = res.json as Page;
      expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor', 'total']);
      expect(page.total).toBe(players.length);
      expect(page.data).toHaveLength(50);
      for (const row of page.data) expect(Object.keys(row)).toEqual(ROSTER_KEYS);
    });

    it('walks the whole roster with cursors, each player exactly once', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const path: string = `/v1/players?limit=70${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = (await stack.call(path)).json as Page;
        seen.push(...page.data.map((row) => row['platform_id'] as string));
        expect(page.has_more).toBe(page.next_cursor !== null);
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(players.map((p) => p.platform_id));
    });

    it.each(['9', '101', '0', '1e1', ' 10', 'ten'])('refuses limit=%s with 400', async (limit) => {
      const res = await stack.call(`/v1/players?limit=${encodeURIComponent(limit)}`);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('validation_error');
    });

    it('refuses a forged cursor with 400', async () => {
      const page = (await stack.call('/v1/players?limit=10')).json as Page;
      const [body, tag] = (page.next_cursor as string).split('.') as [string, string];
      const forged = `${body.slice(0, -2)}AA.${tag}`;
      for (const cursor of [forged, 'garbage', `${body}.`, `${page.next_cursor}.x`]) {
        const res = await stack.call(`/v1/players?cursor=${encodeURIComponent(cursor)}`);
        expect(res.status, cursor).toBe(400);
      }
    });

    it('refuses a cursor minted for another key or another filter with 400', async () => {
      const page = (await stack.call('/v1/players?limit=10')).json as Page;
      const cursor = encodeURIComponent(page.next_cursor as string);
      const other = await stack.data.createKey('--name', 'other');
      const foreign = await stack.call(`/v1/players?cursor=${cursor}`, {
        headers: { authorization: `Bearer ${other.key}` },
      });
      expect(foreign.status).toBe(400);
      expect((await stack.call(`/v1/players?online=true&cursor=${cursor}`)).status).toBe(400);
      expect((await stack.call(`/v1/players?limit=20&cursor=${cursor}`)).status).toBe(200);
    });

    it('refuses search with a structured filter, and both id filters together, with 400', async () => {
      expect((await stack.call('/v1/players?search=a&online=true')).status).toBe(400);
      const both = await stack.call(
        `/v1/players?platform_id=${linked.platform_id}&social_id=${linked.social_id}`,
      );
      expect(both.status).toBe(400);
    });

    it('filters by social id, and answers an empty page for a social id linked to nobody', async () => {
      const hit = (await stack.call(`/v1/players?social_id=${linked.social_id}`)).json as Page;
      expect(hit.data.map((r) => r['platform_id'])).toEqual([linked.platform_id]);
      const miss = await stack.call('/v1/players?social_id=99999999999999999999');
      expect(miss.status).toBe(200);
      expect(miss.json).toMatchObject({ data: [], has_more: false, next_cursor: null, total: 0 });
    });

    it('filters by online state', async () => {
      const page = (await stack.call('/v1/players?online=true&limit=100')).json as Page;
      expect(page.total).toBe(players.filter((p) => p.online).length);
      expect(page.data.every((row) => row['online'] === true)).toBe(true);
    });

    it('sends a strong ETag, a short private max-age, and 304 when nothing changed', async () => {
      const first = await stack.call('/v1/players?limit=10');
      expect(first.headers['cache-control']).toBe('private, max-age=5');
      const again = await stack.call('/v1/players?limit=10', {
        headers: { 'if-none-match': first.headers['etag'] as string },
      });
      expect(again.status).toBe(304);
    });
  });

  describe('GET /v1/players/online', () => {
    it('answers the count and one row per connected player, with no social_id', async () => {
      const res = await stack.call('/v1/players/online');
      const body = res.json as { online: number; data: Array<Record<string, unknown>> };
      expect(body.online).toBe(players.filter((p) => p.online).length);
      expect(body.data).toHaveLength(body.online);
      expect(body.data[0]).not.toHaveProperty('social_id');
    });

    it('keeps its ETag while nothing moved', async () => {
      const a = await stack.call('/v1/players/online');
      const b = await stack.call('/v1/players/online');
      expect(b.headers['etag']).toBe(a.headers['etag']);
    });

    it('filters to one player', async () => {
      const online = players.find((p) => p.online) as Player;
      const body = (await stack.call(`/v1/players/online?platform_id=${online.platform_id}`)).json as {
        online: number;
      };
      expect(body.online).toBe(1);
    });
  });

  describe('GET /v1/players/{ref}', () => {
    it('answers the full profile by platform id and by social: ref alike', async () => {
      const byPlatform = await stack.call(`/v1/players/${linked.platform_id}`);
      const bySocial = await stack.call(`/v1/players/social:${linked.social_id}`);
      expect(byPlatform.status).toBe(200);
      expect(bySocial.json).toEqual(byPlatform.json);
      expect(Object.keys(byPlatform.json as object)).toEqual([
        ...ROSTER_KEYS,
        'service_stats',
        'skills',
        'bases',
        'vehicles',
        'survival',
      ]);
    });

    it('answers 404 for a platform id never seen and a social id linked to nobody', async () => {
      expect(errorOf((await stack.call('/v1/players/76561199999999999')).json).code).toBe('not_found');
      expect((await stack.call('/v1/players/social:99999999999999999')).status).toBe(404);
    });

    it.each(['123', 'social:123', '7656119000000000x', 'abc'])(
      'answers 400 for the malformed ref %s',
      async (ref) => {
        expect((await stack.call(`/v1/players/${ref}`)).status).toBe(400);
      },
    );

    it('answers the nested inventory with truncated subtrees marked', async () => {
      const res = await stack.call(`/v1/players/${linked.platform_id}/inventory`);
      expect(res.status).toBe(200);
      const items = (res.json as { items: unknown[] }).items;
      expect(Array.isArray(items)).toBe(true);
    });

    it('answers the moderation state', async () => {
      const res = await stack.call(`/v1/players/${unlinked.platform_id}/moderation`);
      expect(res.json).toMatchObject({ player: { platform_id: unlinked.platform_id, social_id: null } });
    });
  });

  describe('sensitive reads', () => {
    it('answers violations newest first, without total, never cached', async () => {
      const withHistory = players.find((p) => stack.sim!.world.players.violations(p).length > 1) as Player;
      const res = await stack.call(`/v1/players/${withHistory.platform_id}/violations?limit=100`);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['etag']).toBeUndefined();
      const page = res.json as Page;
      expect(page).not.toHaveProperty('total');
      const times = page.data.map((v) => v['applied_at'] as string);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('answers IP history newest first, never cached', async () => {
      const res = await stack.call(`/v1/players/${linked.platform_id}/ips`);
      expect(res.headers['cache-control']).toBe('private, no-store');
      const body = res.json as { current_ip: string; history: Array<{ ip: string; last_seen: string }> };
      expect(body.history[0]?.ip).toBe(body.current_ip);
    });

    it('needs players:read_sensitive, naming it when missing', async () => {
      const { key } = await stack.data.createKey('--name', 'reader', '--scopes', 'players:read');
      const res = await stack.call(`/v1/players/${linked.platform_id}/ips`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(403);
      expect(errorOf(res.json).details).toEqual({ missing_scope: 'players:read_sensitive' });
    });
  });
});

describe('player reads on a mod older than 2.0.47', () => {
  const stack = suiteStack({ sim: { modVersion: '2.0.46' } });

  it('answers null total_kills, total_deaths and login_streak', async () => {
    const player = stack.sim!.world.players.list.itemAt(0);
    const profile = (await stack.call(`/v1/players/${player.platform_id}`)).json as {
      service_stats: Record<string, unknown>;
    };
    expect(profile.service_stats).toMatchObject({
      total_kills: null,
      total_deaths: null,
      login_streak: null,
    });
  });
});

describe('the read cache', () => {
  const stack = suiteStack();

  it('sends concurrent identical reads to the game server once', async () => {
    const player = stack.sim!.world.players.list.itemAt(3);
    const reads = await Promise.all(
      Array.from({ length: 40 }, () => stack.call(`/v1/players/${player.platform_id}/moderation`)),
    );
    expect(new Set(reads.map((r) => r.status))).toEqual(new Set([200]));
    expect(stack.sim!.opCounts.get('players.moderation')).toBe(1);
  });

  it('answers repeated reads within the max-age from the daemon', async () => {
    const before = stack.sim!.opCounts.get('players.list') ?? 0;
    for (let i = 0; i < 5; i++) await stack.call('/v1/players?limit=10');
    expect(stack.sim!.opCounts.get('players.list')).toBe(before + 1);
  });

  it('always sends sensitive reads to the game server', async () => {
    const player = stack.sim!.world.players.list.itemAt(4);
    for (let i = 0; i < 3; i++) await stack.call(`/v1/players/${player.platform_id}/ips`);
    expect(stack.sim!.opCounts.get('players.ips')).toBe(3);
  });
});
