/**
 * The economy ledger rows a command's currency effects write (spec "Economy ledger entry"), so
 * every cash and gold movement made through the console is in the ledger, whichever path ran it:
 * the currency endpoints, POST /v1/commands, the panel.
 *
 * A per-player row reads the player's balance back after the change. A player who disconnected
 * in between (consoleState.leavingMidChange makes one do so) gets null balances: the change
 * applied, but the game could not say what it left. A bulk row has no player and no balances.
 */
import type { LedgerEntry, LedgerSource, World } from '../world/index.ts';
import { consoleStateOf } from './state.ts';
import type {
  BulkCurrencyEffect,
  CommandSource,
  ConsoleActor,
  ConsoleEffect,
  ConsoleRequest,
  CurrencyEffect,
} from './types.ts';

/**
 * The ledger source of each console source. In-game chat commands have no source of their own in
 * the spec's list: they are the game's own (`system`).
 */
export const LEDGER_SOURCE_OF: Readonly<Record<CommandSource, LedgerSource>> = {
  api: 'api',
  panel: 'panel',
  chat: 'system',
  task: 'task',
};

/** The ledger actor: the person behind the command, or null when none can be named. */
export function ledgerActor(actor: ConsoleActor): LedgerEntry['actor'] {
  return actor.platform_id === null ? null : { platform_id: actor.platform_id, social_id: actor.social_id };
}

interface RowContext {
  world: World;
  request: ConsoleRequest;
  /** The command as the history shows it: the reason when the request names none. */
  command: string;
  at: number;
}

/** Appends one ledger row per effect, in order, and returns them. */
export function recordEffects(ctx: RowContext, effects: readonly ConsoleEffect[]): LedgerEntry[] {
  return effects.map((effect) =>
    effect.kind === 'currency' ? playerRow(ctx, effect) : bulkRow(ctx, effect),
  );
}

function common(ctx: RowContext) {
  return {
    at: ctx.world.ledger.stampAt(ctx.at),
    actor: ledgerActor(ctx.request.actor),
    source: LEDGER_SOURCE_OF[ctx.request.source],
    reason: ctx.request.reason ?? ctx.command,
    pack_name: null,
  };
}

function playerRow(ctx: RowContext, effect: CurrencyEffect): LedgerEntry {
  const { world } = ctx;
  const player = world.players.byPlatformId(effect.platform_id);
  if (player !== undefined && consoleStateOf(world).leavingMidChange.delete(player.platform_id)) {
    world.players.setOnline(player, null);
  }
  const readBack = player?.live == null ? null : { cash: player.money, gold: player.gold };
  return world.ledger.append({
    ...common(ctx),
    player: player?.refs.identity ?? { platform_id: effect.platform_id, social_id: null },
    asset: effect.currency,
    mode: effect.mode,
    amount: effect.amount,
    balance_before: readBack === null ? null : effect.before[effect.currency],
    balance_after: readBack === null ? null : readBack[effect.currency],
    scope: 'player',
    affected_count: null,
  });
}

function bulkRow(ctx: RowContext, effect: BulkCurrencyEffect): LedgerEntry {
  return ctx.world.ledger.append({
    ...common(ctx),
    player: null,
    asset: effect.currency,
    mode: effect.mode,
    amount: effect.amount,
    balance_before: null,
    balance_after: null,
    scope: effect.target,
    affected_count: null,
  });
}
