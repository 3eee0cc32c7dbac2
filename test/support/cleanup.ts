/**
 * Run around every test file (vitest.config.ts `setupFiles`). Vitest runs before-hooks in order
 * and after-hooks in reverse, so these wrap the file's own hooks:
 * - it fails a file that leaves a server, socket, child process, watcher or timer running once
 *   its own after-hooks are done (left-running.ts): the shared project's workers run the next
 *   file beside whatever this one left;
 * - it removes the data dirs the file made through harness/data-dir.ts and did not remove
 *   itself, so `npm test` leaves nothing in the temp folder.
 */
import { afterAll, beforeAll } from 'vitest';
import { removeLeftoverDataDirs } from '../../harness/data-dir.ts';
import { keepTimers, leftRunning, resourceCounts, type ResourceCounts } from './left-running.ts';

/**
 * How long a file's stopped servers, children and last timers get to go: a safety net, not a
 * measurement (a closed server leaves within a turn of the loop, a killed child once it has
 * exited). The fixtures of left-running.test.ts set a shorter one to fail fast.
 */
const LEAVE_WITHIN_MS = Number(process.env['MODGATE_TEST_LEAVE_WITHIN_MS'] ?? 10_000);

let before: ResourceCounts = new Map();

beforeAll(() => {
  before = resourceCounts();
  keepTimers();
});

afterAll(async () => {
  await removeLeftoverDataDirs();
  const left = await leftRunning(before, LEAVE_WITHIN_MS);
  if (left.length > 0)
    throw new Error(
      `this file left running what it started: ${left.join(', ')} (stop it in an after-hook: test/support/left-running.ts)`,
    );
}, LEAVE_WITHIN_MS + 30_000);
