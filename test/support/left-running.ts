/**
 * What a test file leaves running in its worker: the refs that keep Node's event loop alive
 * (`process.getActiveResourcesInfo()`: listening servers, sockets, child processes, watchers,
 * timers), counted by type before the file and after its own after-hooks. A file that starts an
 * in-process daemon, simulator or stream and does not stop it leaves one more than it found, and
 * the next file in the same worker (the shared project keeps its workers) runs beside it.
 *
 * It reads only the type names Node reports for refed resources; it never asks a handle about
 * itself (an async_hooks tracker that did aborted vitest workers: docs/architecture.md, "Where
 * tests live").
 */
import { setTimeout as sleep } from 'node:timers/promises';

export type ResourceCounts = ReadonlyMap<string, number>;

/** The event loop's refed resources now, counted by type. */
export function resourceCounts(): ResourceCounts {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** The types of which `after` holds more than `before`, with how many more (`TCPServerWrap × 1`). */
export function leftOver(before: ResourceCounts, after: ResourceCounts): string[] {
  const more: string[] = [];
  for (const [type, count] of after) {
    const extra = count - (before.get(type) ?? 0);
    if (extra > 0) more.push(`${type} × ${extra}`);
  }
  return more.sort();
}

/**
 * Timers are not all in `getActiveResourcesInfo()`: an unref'd one (a debounced write, a
 * heartbeat, a simulator's redial) is left out, yet it fires beside the next file all the same.
 * So the global `setTimeout`/`setInterval` are wrapped once per worker to keep each timer made
 * during the current file with where it was made; a timer is still running until Node marks it
 * destroyed (`_destroyed`, a plain field of Node's Timeout object: fired and not repeating, or
 * cleared). Timers that vitest, Playwright or other dependencies make are theirs to mind.
 */
interface Made {
  readonly timer: NodeJS.Timeout;
  readonly site: Error;
}

const TRACKED = Symbol.for('modgate.test.timers');
type Tracked = { made: Set<Made> };

function tracked(): Tracked {
  const holder = globalThis as { [TRACKED]?: Tracked };
  if (holder[TRACKED] !== undefined) return holder[TRACKED];
  const state: Tracked = { made: new Set() };
  holder[TRACKED] = state;
  const wrap = <F extends typeof setTimeout | typeof setInterval>(original: F): F =>
    Object.assign(function (this: unknown, ...args: Parameters<F>) {
      const timer = (original as (...a: unknown[]) => NodeJS.Timeout).apply(this, args);
      if (state.made.size > 10_000)
        for (const made of state.made) if (isDone(made.timer)) state.made.delete(made);
      state.made.add({ timer, site: new Error('made here') });
      return timer;
    }, original) as unknown as F;
  globalThis.setTimeout = wrap(globalThis.setTimeout);
  globalThis.setInterval = wrap(globalThis.setInterval);
  return state;
}

function isDone(timer: NodeJS.Timeout): boolean {
  return (timer as unknown as { _destroyed?: boolean })._destroyed !== false;
}

/** The first frame of `site` in this repository's own code (not node_modules, not this file). */
function madeAt(site: Error): string | null {
  for (const frame of (site.stack ?? '').split('\n').slice(1)) {
    const at = /\((.*):\d+:\d+\)$|at (\/.*):\d+:\d+$/.exec(frame.trim());
    const file = at?.[1] ?? at?.[2];
    if (file === undefined || file.startsWith('node:')) continue;
    if (file.includes('/node_modules/')) return null;
    if (file.endsWith('/left-running.ts')) continue;
    return frame.trim().replace(/^at /, '');
  }
  return null;
}

/** Starts keeping the timers made from now on (the ones before are another file's). */
export function keepTimers(): void {
  tracked().made.clear();
}

/** Where each timer of ours made since `keepTimers()` and not yet fired or cleared was made. */
function timersRunning(): string[] {
  const running = [...tracked().made].filter((made) => !isDone(made.timer));
  return [...new Set(running.map((made) => madeAt(made.site)).filter((site) => site !== null))].sort();
}

/**
 * Waits until nothing is left over against `before` and no timer of ours made since
 * `keepTimers()` still runs, up to `withinMs`: a closed server or an exited child leaves the
 * list a turn or two of the loop later, a pending one-shot timer fires; an interval, a redial
 * loop or a server nobody closed does not. What is still running then.
 */
export async function leftRunning(before: ResourceCounts, withinMs: number): Promise<string[]> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const left = [...leftOver(before, resourceCounts()), ...timersRunning()];
    if (left.length === 0 || performance.now() >= deadline) return left;
    await sleep(25);
  }
}
