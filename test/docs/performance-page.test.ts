/**
 * docs/performance.md says what stands now, one table per benchmark, in at most 250 lines: the
 * passes and every run's figures go to docs/performance-history.md, so the page a reader opens
 * stays one they read in a sitting. Without a check it grows back into a lab notebook one
 * benchmark at a time (it had passed 250 again within a day of being cut to size).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PAGE = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));
const MAX_LINES = 250;

describe('docs/performance.md', () => {
  it(`stays within ${MAX_LINES} lines`, () => {
    const lines = readFileSync(PAGE, 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_LINES);
  });
});
