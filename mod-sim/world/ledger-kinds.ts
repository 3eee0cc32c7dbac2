/**
 * The kinds of economy movement the generated ledger is made of: one row per kind, covering every
 * source the spec lists. Automatic kinds (kill rewards, scheduled charges, leaderboard payouts)
 * have no actor; bulk kinds have no player and no balances.
 */
import type { ModFeature } from '../mod-version.ts';
import type { LedgerAsset, LedgerScope, LedgerSource } from './economy-types.ts';

export type ActorKind = 'none' | 'self' | 'admin';

export interface LedgerKind {
  readonly source: LedgerSource;
  readonly asset: LedgerAsset;
  readonly scope: LedgerScope;
  readonly actor: ActorKind;
  readonly reason: string;
  /** Signed delta range; zero is never drawn. `price` = minus a pack's shop price. */
  readonly amount: readonly [number, number] | 'price';
  /** Chance a per-player entry is a `set` instead of a `delta`. */
  readonly setChance: number;
  /** Whether pack_name names a pack. */
  readonly pack: boolean;
  readonly weight: number;
  /** Only on mods that have this feature. */
  readonly gate?: ModFeature;
}

function kind(
  source: LedgerSource,
  asset: LedgerAsset,
  actor: ActorKind,
  reason: string,
  amount: LedgerKind['amount'],
  weight: number,
  extra: Partial<Pick<LedgerKind, 'scope' | 'setChance' | 'pack' | 'gate'>> = {},
): LedgerKind {
  return {
    source,
    asset,
    actor,
    reason,
    amount,
    weight,
    scope: 'player',
    setChance: 0,
    pack: false,
    ...extra,
  };
}

export const LEDGER_KINDS: readonly LedgerKind[] = [
  kind('system', 'cash', 'none', 'Kill reward', [50, 500], 30),
  kind('task', 'cash', 'none', 'Base upkeep', [-2_000, -100], 12),
  kind('task', 'coins', 'none', 'Daily login bonus', [5, 50], 8),
  kind('social_bank', 'cash', 'self', 'Bank transfer', [-5_000, 5_000], 8),
  kind('social_cmd', 'gold', 'self', 'Daily gold claim', [1, 10], 5),
  kind('pack', 'coins', 'self', 'Shop purchase', 'price', 12, { pack: true }),
  kind('pack', 'gold', 'self', 'Pack delivery', [50, 500], 3, { pack: true }),
  kind('claim', 'cash', 'self', 'Claim code redemption', [1_000, 50_000], 3, { pack: true }),
  kind('leaderboard', 'coins', 'none', 'Weekly leaderboard prize', [100, 1_000], 2),
  kind('api', 'coins', 'admin', 'Support credit', [-500, 1_000], 4),
  kind('api', 'cash', 'admin', 'Currency adjustment', [-10_000, 20_000], 3, { setChance: 0.2 }),
  kind('panel', 'gold', 'admin', 'Admin adjustment', [-100, 300], 3, { setChance: 0.3 }),
  kind('panel', 'coins', 'admin', 'Admin adjustment', [-200, 500], 2),
  kind('api', 'coins', 'admin', 'Event reward for everyone', [10, 200], 0.3, { scope: 'all' }),
  kind('api', 'coins', 'admin', 'Online players bonus', [10, 100], 0.2, {
    scope: 'online',
    gate: 'coinsTargetOnline',
  }),
  kind('panel', 'cash', 'admin', 'Server anniversary gift', [1_000, 10_000], 0.2, { scope: 'all' }),
  kind('panel', 'gold', 'admin', 'Happy hour', [5, 50], 0.1, { scope: 'online' }),
];

/** Column codes for the enumerations. */
export const ASSET_INDEX: Readonly<Record<LedgerAsset, number>> = { cash: 0, gold: 1, coins: 2 };
