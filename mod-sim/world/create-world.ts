/**
 * `createWorld`: a seeded, deterministic game world. The same options give a byte-identical
 * world; nothing reads the wall clock or Math.random. Each part draws from its own stream
 * (rng.ts), so changing how squads are generated does not reshuffle the ledger.
 *
 * Eager: players, moderation and violations, squads, bases, vehicles, containers, packs,
 * deliveries, claim codes, command history, and the ledger's columns. Derived on first read
 * (and memoised): service stats, skills, survival, inventories, IP history, ledger entry objects.
 */
import { GameEvents } from './game-events.ts';
import type { FeatureSet } from '../mod-version.ts';
import { DEFAULT_MOD_VERSION, featuresOf, parseModVersion } from '../mod-version.ts';
import { AppliedOps } from './applied-ops.ts';
import type { Squad } from './asset-types.ts';
import { AssetStore } from './asset-store.ts';
import { commandCatalog } from './command-catalog.ts';
import { CommandHistory } from './command-history.ts';
import type { CommandCatalog } from './command-types.ts';
import { generateAssets } from './gen-assets.ts';
import { generateClaimCodes } from './gen-claim-codes.ts';
import { generateCommandHistory } from './gen-command-history.ts';
import { generateLedger } from './gen-ledger.ts';
import { generateModeration } from './gen-moderation.ts';
import { PACK_CATEGORIES, generateDeliveries, generatePacks } from './gen-packs.ts';
import { generatePlayers } from './gen-players.ts';
import type { IdRegistry } from './gen-players.ts';
import { generateSquads } from './gen-squads.ts';
import { IndexedList } from './indexed-list.ts';
import { compareNumbers } from './keyset.ts';
import { Ledger } from './ledger.ts';
import { PlayerStore } from './player-store.ts';
import { STREAM, deriveRng } from './rng.ts';
import type { Rng } from './rng.ts';
import { ShopStore } from './shop-store.ts';
import { DAY, DEFAULT_NOW, toEpochMs } from './time.ts';
import type { Player } from './types.ts';

export interface WorldOptions {
  /** Any safe integer; default 1. */
  seed?: number;
  /** Number of players, 0 to 1,000,000; default 200. */
  players?: number;
  /** The simulated mod's version; default '2.1.0'. */
  modVersion?: string;
  /** The generation instant (Date or epoch ms); default 2025-06-01T12:00:00Z, never the wall clock. */
  now?: Date | number;
  /** The clock run-time behaviours read; default: frozen at `now`. */
  clock?: () => number;
  /** Share of players online; default 0.15. */
  onlineShare?: number;
  /** Generated ledger entries; default 15 per player. */
  ledgerEntries?: number;
  /** Generated command history entries; default 1.5 per player. */
  historyEntries?: number;
}

export interface World {
  readonly seed: number;
  readonly modVersion: string;
  readonly features: FeatureSet;
  /** Epoch ms the world was generated at. */
  readonly generatedAt: number;
  /** Epoch ms the server first opened (a year before generatedAt). */
  readonly openedAt: number;
  readonly clock: () => number;
  readonly players: PlayerStore;
  /** By id ascending. */
  readonly squads: IndexedList<Squad, number>;
  readonly assets: AssetStore;
  readonly shop: ShopStore;
  readonly ledger: Ledger;
  readonly commands: { readonly catalog: CommandCatalog; readonly history: CommandHistory };
  /** Op ids of mutating ops already applied, with their results (PROTOCOL §6.4). */
  readonly appliedOps: AppliedOps;
  /** Every run-time change, as game events (PROTOCOL §9); the simulator connects it. */
  readonly events: GameEvents;
}

const MAX_PLAYERS = 1_000_000;

function countOption(name: string, value: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} must be an integer from 0 to ${max}, got ${String(value)}`);
  }
  return value;
}

interface Resolved {
  seed: number;
  players: number;
  modVersion: string;
  now: number;
  clock: () => number;
  onlineShare: number;
  ledgerEntries: number;
  historyEntries: number;
}

function resolveOptions(options: WorldOptions): Resolved {
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
  const players = countOption('players', options.players ?? 200, MAX_PLAYERS);
  const modVersion = options.modVersion ?? DEFAULT_MOD_VERSION;
  parseModVersion(modVersion);
  const now = toEpochMs(options.now ?? DEFAULT_NOW);
  const onlineShare = options.onlineShare ?? 0.15;
  if (!(onlineShare >= 0 && onlineShare <= 1)) throw new RangeError('onlineShare must be within 0 to 1');
  return {
    seed,
    players,
    modVersion,
    now,
    clock: options.clock ?? (() => now),
    onlineShare,
    ledgerEntries: countOption('ledgerEntries', options.ledgerEntries ?? players * 15, 50_000_000),
    historyEntries: countOption(
      'historyEntries',
      options.historyEntries ?? Math.round(players * 1.5),
      10_000_000,
    ),
  };
}

/** What every generator step shares. */
interface Context {
  o: Resolved;
  features: FeatureSet;
  openedAt: number;
  rng: (stream: number) => Rng;
}

function buildShop(ctx: Context, people: Player[], platformIds: ReadonlySet<string>): ShopStore {
  const { o, features, openedAt, rng } = ctx;
  const packs = generatePacks(rng(STREAM.packs), o.players, openedAt, o.now);
  const deliveries = generateDeliveries(
    rng(STREAM.deliveries),
    { count: o.players * 2, players: people, platformIds, packs, openedAt, now: o.now },
    features,
  );
  const claimCodes = generateClaimCodes(
    rng(STREAM.claimCodes),
    { count: Math.ceil(o.players / 2), players: people, packs: packs.packs, refs: packs.refs, now: o.now },
    features,
  );
  return new ShopStore(PACK_CATEGORIES, packs, deliveries, claimCodes);
}

function buildLedger(ctx: Context, people: Player[], players: PlayerStore, shop: ShopStore): Ledger {
  const { o, features, openedAt, rng } = ctx;
  const packs = shop.packHistory();
  const input = {
    count: o.ledgerEntries,
    players: people,
    packs,
    openedAt,
    now: o.now,
    onlineShare: o.onlineShare,
  };
  return new Ledger(generateLedger(rng(STREAM.ledger), input, features), {
    playerAt: (ordinal) => players.atOrdinal(ordinal),
    ordinalOf: (platformId) => players.byPlatformId(platformId)?.ordinal,
    packName: (id) => shop.packSlug(id),
  });
}

function buildCommands(ctx: Context, people: Player[]): World['commands'] {
  const { o, features, openedAt, rng } = ctx;
  const catalog = commandCatalog();
  const input = { count: o.historyEntries, players: people, catalog: catalog.data, openedAt, now: o.now };
  const history = generateCommandHistory(rng(STREAM.commandHistory), input, features);
  return { catalog, history: new CommandHistory(history) };
}

export function createWorld(options: WorldOptions = {}): World {
  const o = resolveOptions(options);
  const openedAt = o.now - 365 * DAY;
  const ctx: Context = { o, features: featuresOf(o.modVersion), openedAt, rng: (s) => deriveRng(o.seed, s) };
  const ids: IdRegistry = { platformIds: new Set(), socialIds: new Set() };
  const people = generatePlayers(
    ctx.rng(STREAM.players),
    { count: o.players, now: o.now, openedAt, onlineShare: o.onlineShare },
    ids,
  );
  const violations = generateModeration(ctx.rng(STREAM.moderation), people, o.now);
  const squads = generateSquads(ctx.rng(STREAM.squads), people);
  const assets = generateAssets(ctx.rng(STREAM.assets), o.seed, people, o.now);
  const players = new PlayerStore(o.seed, ctx.features, people, violations);
  const shop = buildShop(ctx, people, ids.platformIds);
  const ledger = buildLedger(ctx, people, players, shop);
  const commands = buildCommands(ctx, people);
  const events = new GameEvents(o.clock);
  for (const store of [players, shop, ledger, commands.history]) store.events = events;
  return {
    seed: o.seed,
    modVersion: o.modVersion,
    features: ctx.features,
    generatedAt: o.now,
    openedAt,
    clock: o.clock,
    players,
    squads: new IndexedList(squads, (s) => s.id, compareNumbers),
    assets: new AssetStore(o.seed, assets),
    shop,
    ledger,
    commands,
    appliedOps: new AppliedOps(),
    events,
  };
}
