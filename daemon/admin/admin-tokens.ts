/**
 * The running daemon's view of admin tokens (docs/admin.md, "Admin tokens"): it verifies a
 * presented token against the snapshot of admin-tokens.json (so a token revoked through the API,
 * the CLI or a reload is refused on the next request, keep-alive connections included), records
 * when each was last used without a file write per request, and tells listeners (the admin event
 * stream) the moment a token stops being valid, so what it opened can be closed.
 *
 * Last use is kept in memory and written to admin-tokens.json at most once per `flushDelayMs`
 * (default 60 s) and at close, off the request path: a request never waits for it.
 */
import type { Logger } from '../log/log.ts';
import {
  adminTokensFile,
  type AdminTokenRecord,
  redeemInvite,
  verifyAdminToken,
} from '../store/admin-tokens.ts';
import type { DataDir, Snapshot } from '../store/data-dir.ts';

export interface AdminTokensOptions {
  dataDir: DataDir;
  snapshot(): Snapshot;
  log: Logger;
  now?: () => number;
  /** Longest a recorded use waits before it is written; default 60 s. */
  flushDelayMs?: number;
}

export const DEFAULT_LAST_USED_FLUSH_MS = 60_000;

export type RevokedListener = (tokenId: string) => void;

export class AdminTokens {
  readonly #options: AdminTokensOptions;
  readonly #now: () => number;
  /** Uses not yet written: token id → when. */
  readonly #pendingUse = new Map<string, Date>();
  readonly #revokedListeners = new Set<RevokedListener>();
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** Ids valid in the last snapshot seen, to tell which ones a change took away. */
  #valid: Set<string>;

  constructor(options: AdminTokensOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#valid = validIds(options.snapshot());
  }

  /** The active token `text` is, or null; a match is recorded as used. */
  verify(text: string): AdminTokenRecord | null {
    const record = verifyAdminToken(this.#options.snapshot().adminTokensById, text);
    if (record !== null) this.#recordUse(record.id);
    return record;
  }

  /**
   * Spends a staff member's sign-in link (docs/admin.md, "Staff sign-in"): the active token it
   * signs in as, or null. Spent in admin-tokens.json before the session starts, so a link works
   * once even if the daemon stops right after. (The snapshot keeps the spent hash until its next
   * load; nothing reads invites from it.)
   */
  async redeemInvite(code: string): Promise<AdminTokenRecord | null> {
    const record = await redeemInvite(this.#options.dataDir, code, new Date(this.#now()));
    if (record !== null) this.#recordUse(record.id);
    return record;
  }

  /** When a token was last used: a use not yet written, else what the file says. */
  lastUsedAt(record: AdminTokenRecord): Date | null {
    return this.#pendingUse.get(record.id) ?? record.lastUsedAt;
  }

  /**
   * Calls `listener` with the id of every token that stops being valid (revoked, or gone from
   * the file), as soon as the daemon loads the change. Returns the unsubscribe function.
   */
  onRevoked(listener: RevokedListener): () => void {
    this.#revokedListeners.add(listener);
    return () => void this.#revokedListeners.delete(listener);
  }

  /** The daemon loaded a new snapshot: tell listeners which tokens it took away. */
  snapshotChanged(snapshot: Snapshot): void {
    const valid = validIds(snapshot);
    for (const id of this.#valid) {
      if (valid.has(id)) continue;
      for (const listener of this.#revokedListeners) listener(id);
    }
    this.#valid = valid;
  }

  /** Writes pending uses now (at stop). */
  async close(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    await this.#flushing;
    await this.#flush();
  }

  #recordUse(id: string): void {
    this.#pendingUse.set(id, new Date(this.#now()));
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#flushing = this.#flush();
    }, this.#options.flushDelayMs ?? DEFAULT_LAST_USED_FLUSH_MS);
    this.#flushTimer.unref();
  }

  async #flush(): Promise<void> {
    if (this.#pendingUse.size === 0) return;
    const uses = new Map(this.#pendingUse);
    this.#pendingUse.clear();
    try {
      await this.#options.dataDir.update(adminTokensFile, (records) =>
        records.map((record) => {
          const used = uses.get(record.id);
          return used === undefined ? record : { ...record, lastUsedAt: used };
        }),
      );
    } catch (error) {
      this.#options.log.warn('could not record admin token use', { error: (error as Error).message });
    }
  }
}

function validIds(snapshot: Snapshot): Set<string> {
  const ids = new Set<string>();
  for (const record of snapshot.adminTokensById.values()) if (record.revokedAt === null) ids.add(record.id);
  return ids;
}
