/**
 * The test harness cleans up after a test file (test/support/cleanup.ts): every data dir
 * harness/data-dir.ts made and no test removed is removed once the file's own hooks have run, so
 * `npm test` leaves nothing in the temp folder, whatever a test forgot.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeDataDir, removeLeftoverDataDirs } from '../../harness/data-dir.ts';

describe('data dirs the tests leave', () => {
  it('are removed, and one a test removed itself is not touched again', async () => {
    const [left, removed] = [await makeDataDir(), await makeDataDir()];
    await removed.remove();
    expect(existsSync(left.dir)).toBe(true);
    await removeLeftoverDataDirs();
    expect(existsSync(left.dir)).toBe(false);
    expect(existsSync(removed.dir)).toBe(false);
  });
});
