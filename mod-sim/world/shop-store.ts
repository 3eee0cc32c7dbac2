/**
 * The pack catalogue, delivery history and claim codes, each in its keyset order:
 * packs newest-configured first (id descending: ids follow creation), deliveries newest first
 * (id descending), claim codes newest first (key `created_at|code`, descending, because codes
 * themselves are random). It also holds the run-time state of the game's shop: the claim-code
 * direct-message queue and who redeemed which code (mod-sim/handlers/claim-codes*.ts).
 */
import type { GameEvents } from './game-events.ts';
import type { ClaimCode, Pack, PackCategory, PackDelivery } from './economy-types.ts';
import type { GeneratedPacks } from './gen-packs.ts';
import { IndexedList } from './indexed-list.ts';
import { compareNumbers, compareStrings, descending } from './keyset.ts';
import type { PackRef } from './types.ts';

/** Direct messages the claim-code queue holds at most before it refuses new ones (mods >= 2.0.47). */
export const DM_QUEUE_CAPACITY = 1_000;

/** The keyset key of a claim code: creation time, then the code to break ties. */
export function claimCodeKey(code: ClaimCode): string {
  return `${code.created_at}|${code.code}`;
}

export class ShopStore {
  readonly categories: readonly PackCategory[];
  readonly packs: IndexedList<Pack, number>;
  readonly deliveries: IndexedList<PackDelivery, number>;
  readonly claimCodes: IndexedList<ClaimCode, string>;
  readonly #refs: Map<number, PackRef>;
  readonly #codes = new Map<string, ClaimCode>();
  /** Every pack ever created, deleted ones included, ascending id (ledger pack names). */
  readonly #history: readonly Pack[];
  readonly #slugs = new Map<number, string>();
  /** Codes whose direct message waits in the game's queue (delivery_status `pending`). */
  readonly pendingDms = new Set<string>();
  /** Pending messages the queue accepts before refusing (a knob tests may lower). */
  dmQueueCapacity = DM_QUEUE_CAPACITY;
  /** Who redeemed each code at run time (platform ids), for the once-per-player rule. */
  readonly redeemers = new Map<string, Set<string>>();
  /** Where run-time deliveries are reported (`pack.delivered`); set by createWorld. */
  events: GameEvents | null = null;

  constructor(
    categories: readonly PackCategory[],
    generated: GeneratedPacks,
    deliveries: readonly PackDelivery[],
    claimCodes: readonly ClaimCode[],
  ) {
    this.categories = categories;
    this.packs = new IndexedList(generated.packs, (p) => p.id, descending(compareNumbers));
    this.#refs = new Map(generated.refs);
    this.#history = generated.history;
    for (const pack of generated.history) this.#slugs.set(pack.id, pack.name);
    this.deliveries = new IndexedList(deliveries, (d) => d.id, descending(compareNumbers), {
      hashIndex: false,
    });
    this.claimCodes = new IndexedList(claimCodes, claimCodeKey, descending(compareStrings), {
      hashIndex: false,
    });
    for (const code of claimCodes) {
      this.#codes.set(code.code, code);
      if (code.delivery_status === 'pending') this.pendingDms.add(code.code);
    }
  }

  pack(id: number): Pack | undefined {
    return this.packs.get(id);
  }

  /** The shared reference for a pack id ever created (labels null once deleted). */
  packRef(id: number): PackRef | undefined {
    return this.#refs.get(id);
  }

  /** The slug a pack had, even after deletion; null for an id never created. */
  packSlug(id: number): string | null {
    return this.#slugs.get(id) ?? null;
  }

  /** Every pack ever created, deleted ones included, as generated (ascending id). */
  packHistory(): readonly Pack[] {
    return this.#history;
  }

  claimCode(code: string): ClaimCode | undefined {
    return this.#codes.get(code);
  }

  /** Adds a newly minted code. */
  addClaimCode(code: ClaimCode): void {
    this.claimCodes.insert(code);
    this.#codes.set(code.code, code);
  }

  /** The id the next delivery record gets: one above every id so far. */
  nextDeliveryId(): number {
    return this.deliveries.length === 0 ? 1 : this.deliveries.keyAt(0) + 1;
  }

  /** Appends a delivery written at run time (its id from nextDeliveryId). */
  addDelivery(delivery: PackDelivery): void {
    this.deliveries.insert(delivery);
    this.events?.emit('pack.delivered', { ...delivery });
  }

  /** Deletes a pack from the catalogue; its reference keeps the id and loses both labels. */
  deletePack(id: number): boolean {
    const ref = this.#refs.get(id);
    if (!this.packs.remove(id) || ref === undefined) return false;
    ref.name = null;
    ref.display_name = null;
    return true;
  }
}
