/**
 * The pack catalogue, delivery history and claim codes, each in its keyset order:
 * packs newest-configured first (id descending: ids follow creation), deliveries newest first
 * (id descending), claim codes newest first (key `created_at|code`, descending, because codes
 * themselves are random).
 */
import type { ClaimCode, Pack, PackCategory, PackDelivery } from './economy-types.ts';
import type { GeneratedPacks } from './gen-packs.ts';
import { IndexedList } from './indexed-list.ts';
import { compareNumbers, compareStrings, descending } from './keyset.ts';
import type { PackRef } from './types.ts';

/** The keyset key of a claim code: creation time, then the code to break ties. */
export function claimCodeKey(code: ClaimCode): string {
  return `${code.created_at}|${code.code}`;
}

export class ShopStore {
  readonly categories: readonly PackCategory[];
  readonly packs: IndexedList<Pack, number>;
  readonly deliveries: IndexedList<PackDelivery, number>;
  readonly claimCodes: IndexedList<ClaimCode, string>;
  private readonly refs: Map<number, PackRef>;
  private readonly codes = new Map<string, ClaimCode>();
  /** Every pack ever created, deleted ones included, ascending id (ledger pack names). */
  private readonly history: readonly Pack[];
  private readonly slugs = new Map<number, string>();

  constructor(
    categories: readonly PackCategory[],
    generated: GeneratedPacks,
    deliveries: readonly PackDelivery[],
    claimCodes: readonly ClaimCode[],
  ) {
    this.categories = categories;
    this.packs = new IndexedList(generated.packs, (p) => p.id, descending(compareNumbers));
    this.refs = new Map(generated.refs);
    this.history = generated.history;
    for (const pack of generated.history) this.slugs.set(pack.id, pack.name);
    this.deliveries = new IndexedList(deliveries, (d) => d.id, descending(compareNumbers), {
      hashIndex: false,
    });
    this.claimCodes = new IndexedList(claimCodes, claimCodeKey, descending(compareStrings), {
      hashIndex: false,
    });
    for (const code of claimCodes) this.codes.set(code.code, code);
  }

  pack(id: number): Pack | undefined {
    return this.packs.get(id);
  }

  /** The shared reference for a pack id ever created (labels null once deleted). */
  packRef(id: number): PackRef | undefined {
    return this.refs.get(id);
  }

  /** The slug a pack had, even after deletion; null for an id never created. */
  packSlug(id: number): string | null {
    return this.slugs.get(id) ?? null;
  }

  /** Every pack ever created, deleted ones included, as generated (ascending id). */
  packHistory(): readonly Pack[] {
    return this.history;
  }

  claimCode(code: string): ClaimCode | undefined {
    return this.codes.get(code);
  }

  /** Adds a newly minted code. */
  addClaimCode(code: ClaimCode): void {
    this.claimCodes.insert(code);
    this.codes.set(code.code, code);
  }

  /** Deletes a pack from the catalogue; its reference keeps the id and loses both labels. */
  deletePack(id: number): boolean {
    const ref = this.refs.get(id);
    if (!this.packs.remove(id) || ref === undefined) return false;
    ref.name = null;
    ref.display_name = null;
    return true;
  }
}
