/**
 * Players and their indexes: by platform id (the sorted roster), social id, profile id, ordinal
 * and presence (the connected players, also sorted). The heavy per-player parts are derived on
 * first read and memoised (see player-details.ts, inventory.ts); the store keeps every copy of a
 * player's social id in step. It knows which players have joined the server (a coin credit can
 * create a record for an id that never did), keeps the game's moderation list (bans and mutes of
 * platform ids that never joined), and hands out violation ids.
 */
import type { GameEvents } from './game-events.ts';
import type { FeatureSet } from '../mod-version.ts';
import { cleanModeration } from './gen-players.ts';
import { IndexedList } from './indexed-list.ts';
import { deriveInventory } from './inventory.ts';
import { compareNumbers, compareStrings, descending } from './keyset.ts';
import { deriveIpHistory, derivePlayerDetails } from './player-details.ts';
import type {
  PlayerIdentity,
  InventoryItem,
  IpHistory,
  LiveState,
  Player,
  PlayerDetails,
  PlayerModeration,
  Violation,
} from './types.ts';

export const SOCIAL_REF_PREFIX = 'social:';

/**
 * What the game holds on one platform id's moderation: a player's, or a moderation-list entry for
 * an id that never joined. Change the state by assigning `moderation.ban` / `moderation.mute`; the
 * violation history is newest first.
 */
export interface ModerationRecord {
  readonly identity: PlayerIdentity;
  readonly moderation: PlayerModeration;
  readonly violations: IndexedList<Violation, number>;
}

function newViolationList(items: Violation[] = []): IndexedList<Violation, number> {
  return new IndexedList(items, (v) => v.id, descending(compareNumbers));
}

export class PlayerStore {
  /** Every player, sorted by platform id: the roster's keyset order. */
  readonly list: IndexedList<Player, string>;
  /** Connected players, sorted by platform id like the roster (read-only: use setOnline). */
  readonly onlineList: IndexedList<Player, string>;
  readonly #byOrdinal: Player[];
  /** Moderation-list entries by platform id, for ids with no player (never joined). */
  readonly #moderationList = new Map<string, ModerationRecord>();
  /** Platform ids with a record but no join yet (created by a coin credit; see `add`). */
  readonly #neverJoined = new Set<string>();
  #lastViolationId = 0;
  /** Where presence and link changes are reported; set by createWorld. */
  events: GameEvents | null = null;
  readonly #bySocial = new Map<string, Player>();
  readonly #violationLists = new Map<number, IndexedList<Violation, number>>();
  readonly #detailCache = new Map<number, PlayerDetails>();
  readonly #inventoryCache = new Map<number, InventoryItem[]>();
  readonly #ipCache = new Map<number, IpHistory>();
  readonly #seed: number;
  readonly #features: FeatureSet;

  constructor(
    seed: number,
    features: FeatureSet,
    players: readonly Player[],
    violations: ReadonlyMap<number, Violation[]>,
  ) {
    this.#seed = seed;
    this.#features = features;
    this.#byOrdinal = [...players];
    this.list = new IndexedList(players, (p) => p.platform_id, compareStrings);
    this.onlineList = new IndexedList(
      players.filter((p) => p.online),
      (p) => p.platform_id,
      compareStrings,
    );
    for (const player of players) if (player.social_id !== null) this.#bySocial.set(player.social_id, player);
    for (const [ordinal, list] of violations) {
      const history = newViolationList(list);
      this.#violationLists.set(ordinal, history);
      if (history.length > 0) this.#lastViolationId = Math.max(this.#lastViolationId, history.keyAt(0));
    }
  }

  get size(): number {
    return this.#byOrdinal.length;
  }

  byPlatformId(platformId: string): Player | undefined {
    return this.list.get(platformId);
  }

  bySocialId(socialId: string): Player | undefined {
    return this.#bySocial.get(socialId);
  }

  byProfileId(profileId: number): Player | undefined {
    return this.#byOrdinal[profileId - 1];
  }

  atOrdinal(ordinal: number): Player | undefined {
    return ordinal < 0 ? undefined : this.#byOrdinal[ordinal];
  }

  /** Resolves a `<player_ref>`: a platform id, or `social:` followed by a social id. */
  resolveRef(ref: string): Player | undefined {
    if (ref.startsWith(SOCIAL_REF_PREFIX)) return this.bySocialId(ref.slice(SOCIAL_REF_PREFIX.length));
    return this.byPlatformId(ref);
  }

  /** Connected players in roster order (read-only, no copy). */
  online(): readonly Player[] {
    return this.onlineList.values();
  }

  /** O(1). */
  onlineCount(): number {
    return this.onlineList.length;
  }

  /**
   * Connects a player with its live state, or with null disconnects it. Presence must change
   * through here so the online index and count stay right. Connecting counts as joining.
   */
  setOnline(player: Player, live: LiveState | null): void {
    if (live !== null) this.#neverJoined.delete(player.platform_id);
    const was = player.online;
    player.online = live !== null;
    player.live = live;
    if (live !== null && !this.onlineList.has(player.platform_id)) this.onlineList.insert(player);
    if (live === null) this.onlineList.remove(player.platform_id);
    if (was !== player.online) this.#reportPresence(player);
  }

  /** `player.joined` carries the address the player connected from (a sensitive field). */
  #reportPresence(player: Player): void {
    if (!this.events) return;
    const identity = { ...player.refs.identity };
    if (!player.online) return this.events.emit('player.left', { player: identity });
    const ip = this.ipHistory(player).current_ip;
    this.events.emit('player.joined', { player: identity, char_name: player.char_name, ip });
  }

  /** Service stats, skills and survival, derived on first read. */
  details(player: Player): PlayerDetails {
    return memo(this.#detailCache, player.ordinal, () =>
      derivePlayerDetails(this.#seed, player, this.#features),
    );
  }

  inventory(player: Player): InventoryItem[] {
    return memo(this.#inventoryCache, player.ordinal, () =>
      deriveInventory(this.#seed, 'player', player.ordinal),
    );
  }

  ipHistory(player: Player): IpHistory {
    return memo(this.#ipCache, player.ordinal, () => deriveIpHistory(this.#seed, player));
  }

  /** The player's violation history, newest first (keyed by violation id). */
  violations(player: Player): IndexedList<Violation, number> {
    return memo(this.#violationLists, player.ordinal, () => newViolationList());
  }

  /** The id for the next violation written at run time: one above every id so far. */
  nextViolationId(): number {
    return ++this.#lastViolationId;
  }

  /** A player's moderation record (shares the player's identity and moderation objects). */
  moderationOf(player: Player): ModerationRecord {
    return {
      identity: player.refs.identity,
      moderation: player.moderation,
      violations: this.violations(player),
    };
  }

  /**
   * True once the player has joined the server. Generated players have; a record created by a
   * coin credit to an unknown id has not, until it connects (docs/players.md#players-who-never-joined:
   * having a record is not having joined).
   */
  hasJoined(player: Player): boolean {
    return !this.#neverJoined.has(player.platform_id);
  }

  /** The moderation-list entry of a platform id that never joined; undefined when there is none. */
  moderationListed(platformId: string): ModerationRecord | undefined {
    return this.#moderationList.get(platformId);
  }

  /**
   * The moderation-list entry for a platform id that never joined, created clean on first use. An
   * entry stays (with its history) after the ban or mute is lifted, until the id joins: see `add`.
   */
  moderationListEntry(platformId: string): ModerationRecord {
    if (this.byPlatformId(platformId) !== undefined) throw new Error(`${platformId} is a player`);
    return memo(this.#moderationList, platformId, () => ({
      identity: { platform_id: platformId, social_id: null },
      moderation: cleanModeration(),
      violations: newViolationList(),
    }));
  }

  /**
   * Adds a player created at run time; its ordinal must be the next one (the store's size).
   * `joined: false` records an id the game knows without a join (a coin credit). A moderation-list
   * entry for its platform id becomes the player's moderation state and history.
   */
  add(player: Player, { joined = true }: { joined?: boolean } = {}): void {
    if (player.ordinal !== this.#byOrdinal.length)
      throw new Error(`expected ordinal ${this.#byOrdinal.length}`);
    if (player.social_id !== null && this.#bySocial.has(player.social_id))
      throw new Error('social id already linked');
    this.list.insert(player);
    this.#byOrdinal.push(player);
    if (player.social_id !== null) this.#bySocial.set(player.social_id, player);
    if (player.online) this.onlineList.insert(player);
    if (!joined && !player.online) this.#neverJoined.add(player.platform_id);
    const listed = this.#moderationList.get(player.platform_id);
    if (listed !== undefined) {
      player.moderation = listed.moderation;
      this.#violationLists.set(player.ordinal, listed.violations);
      this.#moderationList.delete(player.platform_id);
    }
  }

  /**
   * Links (or with null, unlinks) a social account, updating the player, the shared identity,
   * owner and moderator objects and the social index. Throws when the social id is taken.
   */
  setSocialLink(player: Player, socialId: string | null): void {
    if (socialId !== null) {
      const holder = this.#bySocial.get(socialId);
      if (holder !== undefined && holder !== player)
        throw new Error(`social id ${socialId} is linked to another player`);
    }
    const previous = player.social_id;
    if (player.social_id !== null) this.#bySocial.delete(player.social_id);
    player.social_id = socialId;
    player.refs.identity.social_id = socialId;
    player.refs.owner.social_id = socialId;
    player.refs.moderator.social_id = socialId;
    if (socialId !== null) this.#bySocial.set(socialId, player);
    const identity = { ...player.refs.identity };
    if (socialId !== null) this.events?.emit('player.linked', { player: identity });
    else if (previous !== null)
      this.events?.emit('player.unlinked', { player: identity, social_id: previous });
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
