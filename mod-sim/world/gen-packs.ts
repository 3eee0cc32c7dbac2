/**
 * The pack catalogue and its delivery history. Pack ids follow creation order; about one pack in
 * ten has since been deleted, so older delivery rows may point at it with null labels (spec,
 * "Pack reference"). Deliveries come from the shop, claim-code redemptions, admin gives and (on
 * mods with free grants) the API; API grants to never-seen platform ids fail.
 */
import type { FeatureSet } from '../mod-version.ts';
import type { DeliverySource, DeliveryStatus, Pack, PackCategory, PackDelivery } from './economy-types.ts';
import { PLATFORM_ID_PREFIX } from './ids.ts';
import { weightTable } from './rng.ts';
import type { Rng, WeightTable } from './rng.ts';
import { DAY, parseSqlDateTime, sqlDateTime } from './time.ts';
import type { PlayerIdentity, PackRef, Player } from './types.ts';

export const PACK_CATEGORIES: readonly PackCategory[] = [
  { id: 1, name: 'items' },
  { id: 2, name: 'currency' },
  { id: 3, name: 'vehicles' },
  { id: 4, name: 'kits' },
  { id: 5, name: 'boosts' },
  { id: 6, name: 'cosmetics' },
];

/** `category id|slug|title|description` */
const PACK_TEMPLATES = `
1|ak47-bundle|AK-47 Bundle|An AK-47 with three magazines.
1|sniper-kit|Sniper Kit|SVD Dragunov, scope and ammunition.
1|medical-crate|Medical Crate|Bandages, painkillers and antibiotics.
1|builder-tools|Builder Tools|Nails, rope and a multitool.
2|gold-100|100 Gold|One hundred gold bars.
2|gold-500|500 Gold|Five hundred gold bars.
2|cash-50k|50k Cash|Fifty thousand in the bank.
3|dirtbike|Dirtbike|A fuelled dirtbike, delivered to you.
3|laika|Laika|A Laika with a basic lock.
3|barba-boat|Barba Boat|A boat for the coast.
4|starter-kit|Starter Kit|Clothes, food and a knife for a fresh start.
4|raid-kit|Raid Kit|Lockpicks and explosives.
4|survival-kit|Survival Kit|Water, food and a lighter.
5|fame-boost-1h|Fame Boost (1 h)|Double fame for one hour.
5|xp-boost-24h|Skill Boost (24 h)|Faster skill gain for a day.
6|camo-jacket|Camo Jacket|A cosmetic camouflage jacket.
6|golden-ak|Golden AK Skin|A gold finish for the AK-47.
`;

interface Template {
  category: PackCategory;
  slug: string;
  title: string;
  description: string;
}

const TEMPLATES: readonly Template[] = PACK_TEMPLATES.trim()
  .split('\n')
  .map((line) => {
    const [category, slug, title, description] = line.split('|');
    const found = PACK_CATEGORIES.find((c) => c.id === Number(category)) as PackCategory;
    return { category: found, slug: slug ?? '', title: title ?? '', description: description ?? '' };
  });

/** Packs generated, deleted ones included: grows slowly with the player count. */
export function packCount(players: number): number {
  return Math.min(200, 24 + Math.floor(players / 2_000));
}

function buildPack(rng: Rng, id: number, createdAt: number, now: number): Pack {
  const template = TEMPLATES[(id - 1) % TEMPLATES.length] as Template;
  const edition = Math.floor((id - 1) / TEMPLATES.length);
  const slug = edition === 0 ? template.slug : `${template.slug}-${edition + 1}`;
  const limited = rng.chance(0.5);
  const enabled = rng.chance(0.85);
  return {
    id,
    name: slug,
    display_name: edition === 0 ? template.title : `${template.title} #${edition + 1}`,
    description: template.description,
    category: template.category,
    price: rng.int(1, 100) * 50,
    enabled,
    shop_enabled: enabled && rng.chance(0.8),
    buy_limit: limited
      ? { count: rng.int(1, 5), window_minutes: rng.pick([60, 1440, 10080]) }
      : { count: 0, window_minutes: 0 },
    image_url: `packs/${slug}.png`,
    created_at: sqlDateTime(createdAt),
    updated_at: sqlDateTime(createdAt + Math.floor((now - createdAt) * rng.float() ** 2)),
  };
}

export interface GeneratedPacks {
  /** Live catalogue, ascending id. */
  packs: Pack[];
  /** One reference per pack id ever created; deleted packs' labels are null. */
  refs: Map<number, PackRef>;
  /** Every pack ever created, deleted ones included, ascending id (for history generation). */
  history: Pack[];
}

export function generatePacks(rng: Rng, players: number, openedAt: number, now: number): GeneratedPacks {
  const count = packCount(players);
  const history: Pack[] = [];
  for (let id = 1; id <= count; id++) {
    const createdAt = Math.floor(openedAt + ((id - 1 + rng.float()) * (now - DAY - openedAt)) / count);
    history.push(buildPack(rng, id, createdAt, now));
  }
  const deleted = new Set(history.filter(() => rng.chance(0.1)).map((pack) => pack.id));
  const refs = new Map<number, PackRef>();
  for (const pack of history) {
    const gone = deleted.has(pack.id);
    refs.set(pack.id, {
      id: pack.id,
      name: gone ? null : pack.name,
      display_name: gone ? null : pack.display_name,
    });
  }
  return { packs: history.filter((pack) => !deleted.has(pack.id)), refs, history };
}

const ERRORS: Record<Exclude<DeliveryStatus, 'completed'>, string> = {
  partial: 'Inventory full: some items were dropped at the player',
  failed: 'Player not found in the game database',
  refund_failed: 'Delivery failed and the coin refund could not be written',
  ledger_failed: 'Items delivered but the ledger entry could not be written',
};

function deliverySources(features: FeatureSet): WeightTable<DeliverySource> {
  const sources: (readonly [DeliverySource, number])[] = [
    ['shop', 55],
    ['claim', 20],
    ['admin', 15],
  ];
  if (features.freePackGrants) sources.push(['api', 10]);
  return weightTable(sources);
}

export interface DeliveryGenInput {
  count: number;
  players: readonly Player[];
  /** Platform ids in use, so a never-seen id really is one. */
  platformIds: ReadonlySet<string>;
  packs: GeneratedPacks;
  openedAt: number;
  now: number;
}

function strangerIdentity(rng: Rng, platformIds: ReadonlySet<string>): PlayerIdentity {
  let platformId = PLATFORM_ID_PREFIX + rng.digits(10);
  while (platformIds.has(platformId)) platformId = PLATFORM_ID_PREFIX + rng.digits(10);
  return { platform_id: platformId, social_id: null };
}

const STATUSES = weightTable<DeliveryStatus>([
  ['completed', 900],
  ['partial', 40],
  ['failed', 30],
  ['refund_failed', 15],
  ['ledger_failed', 15],
]);

function deliveryStatus(rng: Rng): DeliveryStatus {
  return rng.weighted(STATUSES);
}

/** `count` rows in delivered_at (= id) order, each for a pack and player that existed then. */
export function generateDeliveries(rng: Rng, input: DeliveryGenInput, features: FeatureSet): PackDelivery[] {
  const { count, players, packs, openedAt, now } = input;
  const packTimes = packs.history.map((pack) => parseSqlDateTime(pack.created_at));
  const playerTimes = players.map((player) => parseSqlDateTime(player.created_at));
  const sources = deliverySources(features);
  const rows: PackDelivery[] = [];
  let packsKnown = 0;
  let playersKnown = 0;
  for (let i = 0; i < count; i++) {
    const at = Math.floor(openedAt + ((i + rng.float()) * (now - openedAt)) / count);
    while (packsKnown < packTimes.length && (packTimes[packsKnown] as number) <= at) packsKnown++;
    while (playersKnown < playerTimes.length && (playerTimes[playersKnown] as number) <= at) playersKnown++;
    if (packsKnown === 0 || playersKnown === 0) continue;
    const pack = packs.history[rng.int(0, packsKnown - 1)] as Pack;
    const source = rng.weighted(sources);
    const stranger = source === 'api' && rng.chance(0.03);
    const status = stranger ? 'failed' : deliveryStatus(rng);
    const quantity = rng.chance(0.85) ? 1 : rng.int(2, 5);
    rows.push({
      id: rows.length + 1,
      pack: packs.refs.get(pack.id) as PackRef,
      player: stranger
        ? strangerIdentity(rng, input.platformIds)
        : (players[rng.int(0, playersKnown - 1)] as Player).refs.identity,
      quantity,
      total_price: source === 'shop' ? pack.price * quantity : 0,
      status,
      source,
      error_message: status === 'completed' ? null : ERRORS[status],
      delivered_at: sqlDateTime(at),
    });
  }
  return rows;
}
