/**
 * Players and their indexes: by platform id (the sorted roster), social id, profile id and
 * ordinal. The heavy per-player parts are derived on first read and memoised (see
 * player-details.ts, inventory.ts); the store keeps every copy of a player's social id in step.
 */
import type { FeatureSet } from '../mod-version.ts';
import { IndexedList } from './indexed-list.ts';
import { deriveInventory } from './inventory.ts';
import { compareNumbers, compareStrings, descending } from './keyset.ts';
import { deriveIpHistory, derivePlayerDetails } from './player-details.ts';
import type { InventoryItem, IpHistory, Player, PlayerDetails, Violation } from './types.ts';

export const SOCIAL_REF_PREFIX = 'social:';

export class PlayerStore {
  /** Every player, sorted by platform id: the roster's keyset order. */
  readonly list: IndexedList<Player, string>;
  private readonly byOrdinal: Player[];
  private readonly bySocial = new Map<string, Player>();
  private readonly violationLists = new Map<number, IndexedList<Violation, number>>();
  private readonly detailCache = new Map<number, PlayerDetails>();
  private readonly inventoryCache = new Map<number, InventoryItem[]>();
  private readonly ipCache = new Map<number, IpHistory>();

  constructor(
    private readonly seed: number,
    private readonly features: FeatureSet,
    players: readonly Player[],
    violations: ReadonlyMap<number, Violation[]>,
  ) {
    this.byOrdinal = [...players];
    this.list = new IndexedList(players, (p) => p.platform_id, compareStrings);
    for (const player of players) if (player.social_id !== null) this.bySocial.set(player.social_id, player);
    for (const [ordinal, list] of violations) {
      this.violationLists.set(ordinal, new IndexedList(list, (v) => v.id, descending(compareNumbers)));
    }
  }

  get size(): number {
    return this.byOrdinal.length;
  }

  byPlatformId(platformId: string): Player | undefined {
    return this.list.get(platformId);
  }

  bySocialId(socialId: string): Player | undefined {
    return this.bySocial.get(socialId);
  }

  byProfileId(profileId: number): Player | undefined {
    return this.byOrdinal[profileId - 1];
  }

  atOrdinal(ordinal: number): Player | undefined {
    return ordinal < 0 ? undefined : this.byOrdinal[ordinal];
  }

  /** Resolves a `<player_ref>`: a platform id, or `social:` followed by a social id. */
  resolveRef(ref: string): Player | undefined {
    if (ref.startsWith(SOCIAL_REF_PREFIX)) return this.bySocialId(ref.slice(SOCIAL_REF_PREFIX.length));
    return this.byPlatformId(ref);
  }

  /** Connected players in roster order. */
  online(): Player[] {
    return this.list.values().filter((player) => player.online);
  }

  onlineCount(): number {
    let count = 0;
    for (const player of this.byOrdinal) if (player.online) count++;
    return count;
  }

  /** Service stats, skills and survival, derived on first read. */
  details(player: Player): PlayerDetails {
    return memo(this.detailCache, player.ordinal, () =>
      derivePlayerDetails(this.seed, player, this.features),
    );
  }

  inventory(player: Player): InventoryItem[] {
    return memo(this.inventoryCache, player.ordinal, () =>
      deriveInventory(this.seed, 'player', player.ordinal),
    );
  }

  ipHistory(player: Player): IpHistory {
    return memo(this.ipCache, player.ordinal, () => deriveIpHistory(this.seed, player));
  }

  /** The player's violation history, newest first (keyed by violation id). */
  violations(player: Player): IndexedList<Violation, number> {
    return memo(
      this.violationLists,
      player.ordinal,
      () => new IndexedList<Violation, number>([], (v) => v.id, descending(compareNumbers)),
    );
  }

  /** Adds a player created at run time; its ordinal must be the next one (the store's size). */
  add(player: Player): void {
    if (player.ordinal !== this.byOrdinal.length)
      throw new Error(`expected ordinal ${this.byOrdinal.length}`);
    if (player.social_id !== null && this.bySocial.has(player.social_id))
      throw new Error('social id already linked');
    this.list.insert(player);
    this.byOrdinal.push(player);
    if (player.social_id !== null) this.bySocial.set(player.social_id, player);
  }

  /**
   * Links (or with null, unlinks) a social account, updating the player, the shared identity,
   * owner and moderator objects and the social index. Throws when the social id is taken.
   */
  setSocialLink(player: Player, socialId: string | null): void {
    if (socialId !== null) {
      const holder = this.bySocial.get(socialId);
      if (holder !== undefined && holder !== player)
        throw new Error(`social id ${socialId} is linked to another player`);
    }
    if (player.social_id !== null) this.bySocial.delete(player.social_id);
    player.social_id = socialId;
    player.refs.identity.social_id = socialId;
    player.refs.owner.social_id = socialId;
    player.refs.moderator.social_id = socialId;
    if (socialId !== null) this.bySocial.set(socialId, player);
  }
}

function memo<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
