/**
 * The shape of each game event's `data` (docs/events.md, "Events"), checked when a mod sends one
 * (PROTOCOL §9.5): a `player.banned` without its player and ban is refused, not stored. The
 * schemas reuse the op catalogue's resource objects, so an event carries exactly what the API
 * shows elsewhere. Like op results (PROTOCOL §2.1), data is open for additions on the wire and
 * fields this daemon does not know are dropped: what is stored is the parsed data.
 *
 * The daemon's own events (`mod.*`, `group.*`) have no schema here: a mod may not send them.
 */
import * as z from 'zod';
import { CommandHistoryEntry } from '../../protocol/ops/commands.ts';
import { LedgerEntry } from '../../protocol/ops/economy.ts';
import { CLAIM_STATUSES, PackDelivery, PackRef } from '../../protocol/ops/packs.ts';
import { ModerationState } from '../../protocol/ops/players.ts';
import { Identity, Moderator, socialId } from '../../protocol/ops/schemas.ts';
import type { EventType } from './types.ts';
import { lazyFields } from '../../protocol/lazy-schema.ts';

const Ban = () => ModerationState().shape.ban;
const Mute = () => ModerationState().shape.mute;

/** The event types only the daemon reports (docs/events.md); a mod that sends one is refused. */
export const DAEMON_EVENT_TYPES: ReadonlySet<EventType> = new Set([
  'mod.connected',
  'mod.disconnected',
  'group.sanction.applied',
  'group.sanction.failed',
]);

export type GameEventType = Exclude<
  EventType,
  'mod.connected' | 'mod.disconnected' | 'group.sanction.applied' | 'group.sanction.failed'
>;

/** Per game event type, the schema of its `data`, built when the first event of that type arrives. */
export const EVENT_DATA: Readonly<Record<GameEventType, z.ZodType<Record<string, unknown>>>> = lazyFields<
  GameEventType,
  z.ZodType<Record<string, unknown>>
>({
  'player.joined': () => z.object({ player: Identity, char_name: z.string(), ip: z.string().nullable() }),
  'player.left': () => z.object({ player: Identity }),
  'player.banned': () => z.object({ player: Identity, ban: Ban() }),
  'player.unbanned': () => z.object({ player: Identity, ban: Ban(), unbanned_by: Moderator }),
  'player.muted': () => z.object({ player: Identity, mute: Mute(), reason: z.string(), muted_by: Moderator }),
  'player.unmuted': () => z.object({ player: Identity, mute: Mute(), unmuted_by: Moderator }),
  'player.linked': () => z.object({ player: Identity }),
  'player.unlinked': () => z.object({ player: Identity, social_id: socialId }),
  'economy.changed': LedgerEntry,
  'pack.delivered': PackDelivery,
  'claim_code.redeemed': () =>
    z.object({
      code: z.string(),
      pack: PackRef(),
      player: Identity,
      uses_remaining: z.number().int(),
      status: z.enum(CLAIM_STATUSES),
      delivery: PackDelivery(),
    }),
  'command.executed': CommandHistoryEntry,
});

/** The data as stored (fields this daemon does not know dropped), or null when it does not fit. */
export function parseEventData(type: GameEventType, data: unknown): Record<string, unknown> | null {
  const parsed = EVENT_DATA[type].safeParse(data);
  return parsed.success ? parsed.data : null;
}
