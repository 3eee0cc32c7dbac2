/** The simulated game world: generation, stores, views and the keyset helper. */
export { createWorld } from './create-world.ts';
export type { World, WorldOptions } from './create-world.ts';
export { keysetPage, compareDecimalStrings, compareNumbers, compareStrings, descending } from './keyset.ts';
export type { KeysetPage, KeysetQuery, SortedView } from './keyset.ts';
export { IndexedList } from './indexed-list.ts';
export { PlayerStore, SOCIAL_REF_PREFIX } from './player-store.ts';
export type { ModerationRecord } from './player-store.ts';
export { AppliedOps, APPLIED_OPS_CAPACITY } from './applied-ops.ts';
export { GameEvents, type GameEventListener } from './game-events.ts';
export type { AppliedOp } from './applied-ops.ts';
export { AssetStore } from './asset-store.ts';
export { DM_QUEUE_CAPACITY, ShopStore, claimCodeKey } from './shop-store.ts';
export { Ledger } from './ledger.ts';
export type { LedgerFilter, LedgerQuery } from './ledger.ts';
export { CommandHistory, historyBound } from './command-history.ts';
export type { CommandHistoryFilter } from './command-history.ts';
export { rosterRow, playerProfile, onlineRow, moderationState } from './player-views.ts';
export type { RosterRow, PlayerProfile, OnlineRow, ModerationState } from './player-views.ts';
export { squadRow, squadMembers, squadSummary, squadAssets } from './squad-views.ts';
export type { SquadAssets } from './squad-views.ts';
export { countItems, INVENTORY_DEPTH_CAP, itemOf, nextItemId } from './inventory.ts';
export { CLEAN_BAN, CLEAN_MUTE, cleanModeration, newLiveState, playerRefs } from './gen-players.ts';
export { DEFAULT_NOW, sqlDateTime, isoDateTime, serverLocalStamp, historyStamp } from './time.ts';
export { SECOND, MINUTE, HOUR, DAY } from './time.ts';
export { PLATFORM_ID_PATTERN, SOCIAL_ID_PATTERN, ENTITY_ID_PATTERN } from './ids.ts';
export type * from './types.ts';
export type * from './asset-types.ts';
export type * from './economy-types.ts';
export type * from './command-types.ts';
export { SQUAD_RANK, MUTE_CHANNELS } from './types.ts';
export {
  CLAIM_DELIVERY_STATUSES,
  CLAIM_SOURCES,
  CLAIM_STATUSES,
  DELIVERY_SOURCES,
  DELIVERY_STATUSES,
  LEDGER_ASSETS,
  LEDGER_MODES,
  LEDGER_SCOPES,
  LEDGER_SOURCES,
} from './economy-types.ts';
export { OUTPUT_MODES, TARGET_MODES } from './command-types.ts';
