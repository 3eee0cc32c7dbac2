import { describe, expect, it } from 'vitest';
import {
  DAEMON_EVENT_TYPES,
  EVENT_DATA,
  parseEventData,
  type GameEventType,
} from '../../../daemon/events/event-schemas.ts';
import { EVENT_TYPES } from '../../../daemon/events/types.ts';
import { redeemClaimCode } from '../../../mod-sim/handlers/claim-codes-redeem.ts';
import { newLiveState, type World } from '../../../mod-sim/world/index.ts';
import { deriveRng, STREAM } from '../../../mod-sim/world/rng.ts';
import { banData, commandData } from '../../support/game-events.ts';
import {
  ACTOR,
  banArgs,
  cleanPlayer,
  freeSocialId,
  muteArgs,
  testWorld,
} from '../../mod-sim/handlers/players-support.ts';
import { findPlayer, packBySlug, shopWorld } from '../../mod-sim/handlers/packs-support.ts';

/** Every event the simulated world reports, as the bridge would send it. */
function recording(world: World): Array<{ type: string; data: Record<string, unknown> }> {
  const seen: Array<{ type: string; data: Record<string, unknown> }> = [];
  world.events.connect((type, data) => seen.push({ type, data }));
  return seen;
}

describe('event data schemas', () => {
  it('has a schema for every game event type and none for the daemon own', () => {
    const game = EVENT_TYPES.filter((type) => !DAEMON_EVENT_TYPES.has(type));
    expect(Object.keys(EVENT_DATA).sort()).toEqual([...game].sort());
  });

  it('accepts every player event the simulator reports', async () => {
    const t = testWorld();
    const seen = recording(t.world);
    const player = cleanPlayer(t.world, (p) => p.social_id === null && !p.online);
    const ref = { platform_id: player.platform_id };
    t.world.players.setOnline(player, newLiveState(deriveRng(1, STREAM.gameLife)));
    t.world.players.setOnline(player, null);
    await t.call('players.ban', banArgs(ref));
    await t.call('players.unban', { ref, actor: ACTOR });
    await t.call('players.mute', muteArgs(ref));
    await t.call('players.unmute', { ref, actor: ACTOR });
    await t.call('players.link', {
      platform_id: player.platform_id,
      social_id: freeSocialId(t.world),
      actor: ACTOR,
    });
    await t.call('players.unlink', { ref, actor: ACTOR });
    expect(seen.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'player.joined',
        'player.left',
        'player.banned',
        'player.unbanned',
        'player.muted',
        'player.unmuted',
        'player.linked',
        'player.unlinked',
      ]),
    );
    for (const event of seen)
      expect([event.type, parseEventData(event.type as GameEventType, event.data)]).not.toContainEqual(null);
  });

  it('accepts a delivery and a claim code redemption as the simulator reports them', async () => {
    const t = shopWorld({ seed: 3 });
    const seen = recording(t.world);
    const player = findPlayer(t.world, (p) => p.online);
    const { code } = await t.call('claim_codes.mint', {
      pack_id: String(packBySlug(t.world, 'gold-500').id),
      platform_id: null,
      max_uses: 1,
      expiry_days: 0,
      actor: ACTOR,
    });
    expect(redeemClaimCode(t.world, code, player.platform_id).ok).toBe(true);
    expect(seen.map((event) => event.type)).toEqual(
      expect.arrayContaining(['economy.changed', 'pack.delivered', 'claim_code.redeemed']),
    );
    for (const event of seen)
      expect([event.type, parseEventData(event.type as GameEventType, event.data)]).not.toContainEqual(null);
  });

  it('refuses a player.banned without its player and ban, and drops fields it does not know', () => {
    expect(parseEventData('player.banned', {})).toBeNull();
    expect(parseEventData('player.banned', { ...banData(), extra: new Uint8Array(8) })).toEqual(banData());
    expect(parseEventData('command.executed', { ...commandData('#Online'), filler: 'x' })).toEqual(
      commandData('#Online'),
    );
  });
});
