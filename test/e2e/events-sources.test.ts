import { beforeAll, describe, expect, it } from 'vitest';
import { redeemClaimCode } from '../../mod-sim/handlers/claim-codes-redeem.ts';
import type { Player } from '../../mod-sim/world/index.ts';
import { eventually } from '../../harness/stack.ts';
import { suiteStack } from '../support/suite.ts';

interface Event {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

describe('every write, through the API or in the game, becomes an event', () => {
  const stack = suiteStack({ sim: { catalogDelayMs: 0 } });
  let players: Player[];
  let next = 0;
  const fresh = () => players[next++] as Player;
  const write = async (method: string, path: string, body?: unknown) => {
    const res = await stack.call(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    return res.json as Record<string, unknown>;
  };
  /** The first event after `after` of `type` that `match` accepts, once it is in the log. */
  const arrives = async (after: number, type: string, match: (data: Record<string, unknown>) => boolean) => {
    let found: Event | undefined;
    await eventually(async () => {
      const page = (await stack.call(`/v1/events?after=${after}&types=${type}&limit=1000`)).json as {
        data: Event[];
      };
      found = page.data.find((event) => match(event.data));
      return found !== undefined;
    });
    return found as Event;
  };
  const about = (player: Player) => (data: Record<string, unknown>) =>
    (data['player'] as { platform_id?: string } | null)?.platform_id === player.platform_id;
  const mark = () => stack.daemon.events.lastId();

  beforeAll(async () => {
    players = stack
      .sim!.world.players.list.values()
      .filter(
        (p) => p.online && !p.moderation.ban.banned && !p.moderation.mute.muted && p.social_id === null,
      );
  });

  it('reports a mute and an unmute with the mute object and who did it', async () => {
    const player = fresh();
    const at = mark();
    await write('POST', `/v1/players/${player.platform_id}/mute`, { duration: 1, channels: ['Local'] });
    const muted = await arrives(at, 'player.muted', about(player));
    expect(muted.data['mute']).toMatchObject({ muted: true, channels: ['Local'] });
    await write('DELETE', `/v1/players/${player.platform_id}/mute`);
    const unmuted = await arrives(at, 'player.unmuted', about(player));
    expect(unmuted.data['mute']).toMatchObject({ muted: false });
    expect(unmuted.data['unmuted_by']).toBeDefined();
  });

  it('reports a social link and unlink with the identity', async () => {
    const player = fresh();
    const at = mark();
    await write('POST', `/v1/players/${player.platform_id}/social`, { social_id: '990000000000000123' });
    const linked = await arrives(at, 'player.linked', about(player));
    expect(linked.data['player']).toEqual({
      platform_id: player.platform_id,
      social_id: '990000000000000123',
    });
    await write('DELETE', `/v1/players/${player.platform_id}/social`);
    const unlinked = await arrives(at, 'player.unlinked', about(player));
    expect(unlinked.data).toMatchObject({ social_id: '990000000000000123' });
  });

  it('reports coin and currency changes as ledger entries', async () => {
    const player = fresh();
    const at = mark();
    await write('POST', `/v1/players/${player.platform_id}/coins`, { amount: 25, reason: 'event test' });
    const coins = await arrives(at, 'economy.changed', about(player));
    expect(coins.data).toMatchObject({ asset: 'coins', amount: 25, reason: 'event test', source: 'api' });
    await write('POST', `/v1/players/${player.platform_id}/currency`, {
      currency: 'gold',
      amount: 7,
      reason: 'gold test',
    });
    const gold = await arrives(at, 'economy.changed', (d) => about(player)(d) && d['asset'] === 'gold');
    expect(gold.data).toMatchObject({ amount: 7, reason: 'gold test' });
  });

  it('reports a pack delivery with its delivery record', async () => {
    const player = fresh();
    const pack = stack.sim!.world.shop.packs.values().find((p) => p.enabled) as { id: number };
    const at = mark();
    await write('POST', `/v1/packs/${pack.id}/deliver`, { platform_id: player.platform_id });
    const delivered = await arrives(at, 'pack.delivered', about(player));
    expect(delivered.data).toMatchObject({ pack: { id: pack.id }, source: 'api', quantity: 1 });
  });

  it('reports a claim code redeemed in the game', async () => {
    const pack = stack.sim!.world.shop.packs.values().find((p) => p.enabled) as { id: number };
    const minted = await write('POST', '/v1/claim-codes', { pack_id: String(pack.id), max_uses: 3 });
    const player = fresh();
    const at = mark();
    expect(redeemClaimCode(stack.sim!.world, minted['code'] as string, player.platform_id).ok).toBe(true);
    const redeemed = await arrives(at, 'claim_code.redeemed', about(player));
    expect(redeemed.data).toMatchObject({ code: minted['code'], uses_remaining: 2 });
    expect(redeemed.data['delivery']).toMatchObject({ source: 'claim' });
  });

  it('reports a console command run through the API with its history entry', async () => {
    const at = mark();
    await write('POST', '/v1/commands', { verb: 'Announce', args: ['events are live'] });
    const executed = await arrives(at, 'command.executed', (d) => String(d['command']).includes('Announce'));
    expect(executed.data).toMatchObject({ command: expect.stringContaining('events are live') });
  });

  it('reports nothing for a write that changes nothing', async () => {
    const player = fresh();
    await write('POST', `/v1/players/${player.platform_id}/ban`, { duration: 5, reason: 'once' });
    await arrives(0, 'player.banned', about(player));
    await write('POST', `/v1/players/${player.platform_id}/ban`, { duration: 5, reason: 'once' });
    await write('DELETE', `/v1/players/${player.platform_id}/ban`);
    await arrives(0, 'player.unbanned', about(player));
    const page = (await stack.call('/v1/events?types=player.banned&limit=1000')).json as { data: Event[] };
    expect(page.data.filter((event) => about(player)(event.data))).toHaveLength(1);
  });
  it('reports the game’s own life: joins and leaves, panel bans and balance changes', async () => {
    const at = mark();
    for (let n = 0; n < 60; n += 1) stack.sim!.life.tick();
    await eventually(async () => {
      const page = (await stack.call(`/v1/events?after=${at}&limit=1000`)).json as { data: Event[] };
      const types = new Set(page.data.map((event) => event.type));
      return ['player.joined', 'player.left', 'command.executed'].every((type) => types.has(type));
    });
  });
});
