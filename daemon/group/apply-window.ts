/**
 * The receiver's window (docs/group.md, "Catching up"): applies one page of the group's rows with
 * up to `size` of them in the game at once, where one at a time left a joining server 14 ms a row
 * behind its game's round trip (docs/performance.md, "Group mode").
 *
 * - Rows of one player and kind (their `key`) go to the game one after the other, in the log's
 *   order; rows of different keys overlap. A row whose key is still in flight holds back the rows
 *   after it until it can go (a page rarely holds two rows of one key: the earlier is superseded).
 * - Before a batch of rows is started, `before` is told their keys once (the outbox's `applying`
 *   notes, one fsync for the batch); a batch is whatever slots are free when the window is woken.
 * - A row whose application answers false (the game went away) stops the window: nothing more is
 *   started, what is in flight finishes, and the result says how far the rows are done without a
 *   gap, which is as far as the cursor may move.
 */

/** One row to apply, or null for a row that needs nothing (it counts as done). */
export interface WindowItem {
  key: string;
  /** true: done (applied, refused by the game, nothing to apply); false: stop. Never rejects. */
  start(): Promise<boolean>;
}

export interface WindowResult {
  /** How many rows from the first are done without a gap: the cursor may move past them. */
  prefix: number;
  /** Which rows are done, gaps included (a row after a stop may have finished). */
  done: readonly boolean[];
  /** The most rows that were in the game at once. */
  peak: number;
}

export async function applyWindow(
  items: readonly (WindowItem | null)[],
  size: number,
  before: (keys: readonly string[]) => Promise<void>,
): Promise<WindowResult> {
  const done = items.map((item) => item === null);
  const busy = new Set<string>();
  const running: Promise<void>[] = [];
  let [next, peak, stopped] = [0, 0, false];
  let wake: (() => void) | null = null;
  const launch = (index: number, item: WindowItem) => {
    const run = item
      .start()
      .catch(() => false)
      .then((ok) => {
        if (ok) done[index] = true;
        else stopped = true;
        busy.delete(item.key);
        void running.splice(running.indexOf(run), 1);
        wake?.();
      });
    running.push(run);
  };
  while (!stopped) {
    while (next < items.length && items[next] === null) next++;
    if (next === items.length) break;
    const batch = takeBatch(items, next, size - running.length, busy);
    if (batch.length === 0) {
      // Every slot is taken, or the next row's key is in flight: wait for one to finish.
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      continue;
    }
    next = (batch.at(-1) as number) + 1;
    await before(batch.map((index) => (items[index] as WindowItem).key));
    for (const index of batch) launch(index, items[index] as WindowItem);
    peak = Math.max(peak, running.length);
  }
  await Promise.all([...running]);
  const gap = done.indexOf(false);
  return { prefix: gap === -1 ? done.length : gap, done, peak };
}

/**
 * The rows from `from` that can start now, in order: up to `free` of them, stopping at a row
 * whose key is in flight or already in the batch. Their keys are marked busy.
 */
function takeBatch(
  items: readonly (WindowItem | null)[],
  from: number,
  free: number,
  busy: Set<string>,
): number[] {
  const batch: number[] = [];
  for (let index = from; index < items.length && batch.length < free; index++) {
    const item = items[index];
    if (item === null || item === undefined) continue;
    if (busy.has(item.key)) break;
    busy.add(item.key);
    batch.push(index);
  }
  return batch;
}
