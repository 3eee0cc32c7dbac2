/**
 * The sanctions from the group this server's game refused: `group-failures.json` in the data dir
 * (docs/group.md, "When the database is down"), 0600, the newest MAX_KEPT, rewritten atomically
 * on each refusal so a restart keeps them. A file of this server's own, not the group's database:
 * a refusal is this server's game's answer, and it must be kept while the database is unreachable
 * too. Refusals are rare (a game that rejects a platform id, a reason too long for it), so one
 * rewrite each costs nothing that matters.
 */
import { join } from 'node:path';
import { writeJsonAtomic } from '../store/atomic-file.ts';
import { readDataText } from '../store/data-dir-fs.ts';
import { GROUP_FILES } from '../store/data-dir-layout.ts';
import { errnoCode } from '../store/errors.ts';
import type { SanctionAction } from './sanction.ts';

/** How many refusals are kept: the oldest go first. */
export const MAX_KEPT = 1_000;

/** A sanction this server's game refused: kept for the `group.sanction.failed` event. */
export interface FailedSanction {
  id: string;
  action: SanctionAction;
  platform_id: string;
  origin_server: string;
  error: string;
  at: string;
}

export class GroupFailures {
  readonly #path: string;
  readonly #list: FailedSanction[];
  /** Rewrites in order, each after the one before. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(path: string, list: FailedSanction[]) {
    this.#path = path;
    this.#list = list;
  }

  /** Reads the refusals kept so far; an unreadable file is none (logged by the caller's next write). */
  static async open(dataDir: string): Promise<GroupFailures> {
    const path = join(dataDir, GROUP_FILES.failures);
    let list: FailedSanction[] = [];
    try {
      const parsed = JSON.parse(await readDataText(path)) as { failures?: unknown };
      if (Array.isArray(parsed.failures)) list = parsed.failures as FailedSanction[];
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
    }
    return new GroupFailures(path, list.slice(-MAX_KEPT));
  }

  get list(): readonly FailedSanction[] {
    return this.#list;
  }

  /**
   * Keeps `failed`; resolves once the file says so (rejects when it cannot be written). A row
   * refused again (sent again after a kill -9, before the cursor moved past it) keeps its first
   * refusal.
   */
  add(failed: FailedSanction): Promise<void> {
    if (this.#list.some((kept) => kept.id === failed.id)) return Promise.resolve();
    this.#list.push(failed);
    if (this.#list.length > MAX_KEPT) this.#list.shift();
    const snapshot = { failures: [...this.#list] };
    const written = this.#tail.then(() => writeJsonAtomic(this.#path, snapshot));
    this.#tail = written.catch(() => undefined);
    return written;
  }

  /** Waits for the last rewrite. */
  async close(): Promise<void> {
    await this.#tail;
  }
}

/**
 * One page of `list` (oldest first, as `GroupFailures.list`), newest first, after the refusal of
 * sanction `after` (the previous page's last; null: the newest). The position is a sanction id
 * rather than an index, so a refusal added meanwhile shifts nothing; one no longer kept (the
 * oldest go first, and every older one with it) ends the listing.
 */
export function failuresPage(
  list: readonly FailedSanction[],
  after: string | null,
  limit: number,
): { data: FailedSanction[]; next: string | null } {
  const newestFirst = list.toReversed();
  const start = after === null ? 0 : newestFirst.findIndex((kept) => kept.id === after) + 1;
  if (start === 0 && after !== null) return { data: [], next: null };
  const data = newestFirst.slice(start, start + limit);
  const next = start + limit < newestFirst.length ? (data.at(-1)?.id ?? null) : null;
  return { data, next };
}
