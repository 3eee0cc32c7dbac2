/**
 * Key texts that verified, so a key's SHA-256 is computed once and not on every request (spec
 * "Authentication"; keys are stored as hashes, docs/data-dir.md "keys.json").
 *
 * Bound to the keys of one snapshot: a reload (a revoked, changed or deleted key: the watcher
 * swaps the snapshot within a second of the file changing) drops every entry at once, so the
 * cache never answers for a key the data dir no longer holds as it was. Expiry is checked on
 * every hit. Only successes are kept, at most `maxEntries` (the set is cleared when full), so a
 * flood of wrong keys neither grows it nor evicts the real ones for long.
 */
import { type ApiKeyVerdict, isKeyExpired, verifyApiKey } from '../store/api-keys.ts';
import type { ApiKeyRecord } from '../store/keys-file.ts';

export class VerifiedKeys {
  #keys: ReadonlyMap<string, ApiKeyRecord> | null = null;
  readonly #verified = new Map<string, ApiKeyVerdict & { ok: true }>();

  constructor(readonly maxEntries = 1_024) {}

  verify(keysById: ReadonlyMap<string, ApiKeyRecord>, text: string, now: Date): ApiKeyVerdict {
    if (keysById !== this.#keys) {
      this.#verified.clear();
      this.#keys = keysById;
    }
    const known = this.#verified.get(text);
    if (known !== undefined && !isKeyExpired(known.record, now)) return known;
    const verdict = verifyApiKey(keysById, text, now);
    if (verdict.ok) {
      if (this.#verified.size >= this.maxEntries) this.#verified.clear();
      this.#verified.set(text, verdict);
    } else if (known !== undefined) {
      this.#verified.delete(text);
    }
    return verdict;
  }
}
