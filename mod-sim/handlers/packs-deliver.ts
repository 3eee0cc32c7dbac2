/**
 * The game's pack delivery, shared by every source: API grants (`packs.deliver`), claim-code
 * redemptions, admin gives and shop purchases (packs-game.ts). One call writes exactly one
 * record of the delivery history, with its final status; nothing moves a record afterwards.
 *
 * The steps, in order (docs/packs.md, "Delivery status"):
 *
 * 1. A platform id the game has never seen: nothing lands, `failed`.
 * 2. A shop purchase charges its coins.
 * 3. Each part lands: items into the inventory (player online, up to PLAYER_INVENTORY_CAPACITY
 *    items; the rest do not fit), vehicles beside the player (online), cash and gold into the
 *    bank, unlocks on the account (online or not). All landed: `completed`; some: `partial`;
 *    none: `failed`.
 * 4. A failed purchase refunds its coins; when the refund cannot be written, `refund_failed`.
 * 5. Every balance that moved is written to the ledger (source `pack`, or `claim` for a
 *    redemption). When something landed and that write fails, `ledger_failed`: the balances
 *    moved, the ledger does not show it.
 *
 * Steps 4 and 5 fail only when the simulator's fault plan has a rule naming `packs.refund` or
 * `packs.ledger` exactly (a `*` rule never touches them); each such rule is used up once.
 */
import type { FaultPlan } from '../faults.ts';
import type {
  DeliverySource,
  DeliveryStatus,
  PlayerIdentity,
  InventoryItem,
  LedgerEntry,
  Pack,
  PackDelivery,
  PackRef,
  Player,
  World,
} from '../world/index.ts';
import { countItems, itemOf, nextItemId, sqlDateTime } from '../world/index.ts';
import { ITEM_KINDS, type ItemKind } from '../world/vocab/items.ts';
import { type PackPart, packContents } from './packs-contents.ts';
import { nowOf } from './players-common.ts';

/** Items a player's inventory holds at most, at all depths (generated inventories hold 6 to 40). */
export const PLAYER_INVENTORY_CAPACITY = 60;

/** Game-internal steps a fault rule can make fail. */
export type GameStep = 'packs.ledger' | 'packs.refund' | 'claim_codes.dm';

export interface GameFaults {
  /** True when `step` fails this time (using up one matching rule). */
  fails(step: GameStep): boolean;
}

export const NO_FAULTS: GameFaults = { fails: () => false };

/** Reads game-step failures from a fault plan: only rules naming the step exactly. */
export function gameFaults(plan: FaultPlan | undefined): GameFaults {
  if (plan === undefined) return NO_FAULTS;
  return {
    fails: (step) => plan.rules().some((rule) => rule.op === step) && plan.take(step) !== undefined,
  };
}

export interface DeliveryRequest {
  pack: Pack;
  /** The player, or undefined for a platform id the game has never seen. */
  player: Player | undefined;
  platformId: string;
  quantity: number;
  source: DeliverySource;
  /** Coins per unit: the shop price on a purchase, 0 on grants, gives and redemptions. */
  unitPrice: number;
  /** Who the ledger names as the actor; null when automatic. */
  actor: PlayerIdentity | null;
}

/** Statuses in which something reached the player: the API's `delivered: true`. */
export const DELIVERED_STATUSES: ReadonlySet<DeliveryStatus> = new Set([
  'completed',
  'partial',
  'ledger_failed',
]);

const NEVER_SEEN = 'Player not found in the game database';

interface Landing {
  parts: number;
  landed: number;
  problems: string[];
  /** Bank movements, applied already: one per currency part. */
  credits: Array<{ asset: 'cash' | 'gold'; amount: number; before: number; after: number }>;
}

type Draft = Omit<LedgerEntry, 'id'>;

/** Delivers `request.quantity` units of the pack and records the delivery; returns the record. */
export function deliverPack(
  world: World,
  request: DeliveryRequest,
  faults: GameFaults = NO_FAULTS,
): PackDelivery {
  const at = sqlDateTime(nowOf(world));
  const { pack, player, quantity } = request;
  const outcome =
    player === undefined
      ? { status: 'failed' as const, error: NEVER_SEEN }
      : settle(world, { ...request, player }, faults);
  const record: PackDelivery = {
    id: world.shop.nextDeliveryId(),
    pack: world.shop.packRef(pack.id) as PackRef,
    player: player?.refs.identity ?? { platform_id: request.platformId, social_id: null },
    quantity,
    total_price: request.unitPrice * quantity,
    status: outcome.status,
    source: request.source,
    error_message: outcome.error,
    delivered_at: at,
  };
  world.shop.addDelivery(record);
  return record;
}

function settle(
  world: World,
  request: DeliveryRequest & { player: Player },
  faults: GameFaults,
): { status: DeliveryStatus; error: string | null } {
  const { player, quantity } = request;
  const price = request.unitPrice * quantity;
  const drafts: Draft[] = [];
  // The ledger keeps its time column ordered: a row is never stamped before its newest entry.
  const entry = ledgerEntry(request, world.ledger.stampAt(nowOf(world)));
  if (price > 0) drafts.push(entry('coins', -price, moveCoins(player, -price), 'Shop purchase'));
  const landing = land(world, player, packContents(request.pack), quantity);
  const reason = request.source === 'claim' ? 'Claim code redemption' : 'Pack delivery';
  for (const c of landing.credits) drafts.push(entry(c.asset, c.amount, [c.before, c.after], reason));
  const problems = landing.problems;
  let status: DeliveryStatus =
    landing.landed === landing.parts ? 'completed' : landing.landed > 0 ? 'partial' : 'failed';
  if (status === 'failed' && price > 0) {
    if (faults.fails('packs.refund')) {
      status = 'refund_failed';
      problems.push(`the refund of ${price} coins could not be written`);
    } else drafts.push(entry('coins', price, moveCoins(player, price), 'Shop refund'));
  }
  const landed = status === 'completed' || status === 'partial';
  if (landed && drafts.length > 0 && faults.fails('packs.ledger')) {
    status = 'ledger_failed';
    problems.push('the ledger entry could not be written');
  } else for (const draft of drafts) world.ledger.append(draft);
  return { status, error: problems.length === 0 ? null : capitalise(problems.join('; ')) };
}

/** Puts every part of `quantity` units where it belongs; counts what landed. */
function land(world: World, player: Player, contents: readonly PackPart[], quantity: number): Landing {
  const landing: Landing = { parts: 0, landed: 0, problems: [], credits: [] };
  const inventory = world.players.inventory(player);
  let room = Math.max(0, PLAYER_INVENTORY_CAPACITY - countItems(inventory));
  let missed = 0;
  let dropped = 0;
  let items = 0;
  for (const part of contents) {
    const units = part.kind === 'item' ? part.count * quantity : quantity;
    landing.parts += units;
    if (part.kind === 'currency') {
      landing.landed += units;
      landing.credits.push(credit(player, part.asset, part.amount * quantity));
    } else if (part.kind === 'unlock') {
      landing.landed += units;
    } else if (!player.online) {
      missed += units;
    } else if (part.kind === 'vehicle') {
      landing.landed += units;
    } else {
      const fit = Math.min(room, units);
      addItems(player, inventory, part.class, fit);
      room -= fit;
      items += units;
      dropped += units - fit;
      landing.landed += fit;
    }
  }
  if (missed > 0)
    landing.problems.push(`player is offline: ${missed} item(s) or vehicle(s) were not delivered`);
  if (dropped > 0) {
    landing.problems.push(`inventory full: ${dropped} of ${items} item(s) did not fit and were dropped`);
  }
  return landing;
}

function credit(player: Player, asset: 'cash' | 'gold', amount: number): Landing['credits'][number] {
  const before = asset === 'cash' ? player.money : player.gold;
  const after = before + amount;
  if (asset === 'cash') player.money = after;
  else player.gold = after;
  return { asset, amount, before, after };
}

function moveCoins(player: Player, amount: number): [number, number] {
  const before = player.coins;
  player.coins = before + amount;
  return [before, player.coins];
}

const KINDS = new Map(ITEM_KINDS.map((kind) => [kind.class, kind]));

function addItems(player: Player, inventory: InventoryItem[], cls: string, count: number): void {
  const kind = KINDS.get(cls) as ItemKind;
  const first = nextItemId('player', player.ordinal, inventory);
  for (let i = 0; i < count; i++) {
    inventory.push(itemOf(kind, first + i));
  }
}

/** Builds the ledger rows of one delivery: the pack's slug, the player, the request's actor. */
function ledgerEntry(request: DeliveryRequest & { player: Player }, at: string) {
  return (
    asset: Draft['asset'],
    amount: number,
    [before, after]: [number, number],
    reason: string,
  ): Draft => ({
    at,
    player: request.player.refs.identity,
    actor: request.actor,
    asset,
    mode: 'delta',
    amount,
    balance_before: before,
    balance_after: after,
    scope: 'player',
    affected_count: null,
    source: request.source === 'claim' ? 'claim' : 'pack',
    reason,
    pack_name: request.pack.name,
  });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
