/**
 * A short seeded pass of the fuzzer (docs/fuzzing.md) against real `serve` and `sim`, so CI runs
 * it: 3,000 requests of every family, with resets. Any crash, 5xx other than 503/504, or answer
 * without the envelope or X-Request-Id makes it exit 1, and its output says which case to replay.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const SEED = '2424';

describe('npm run fuzz', () => {
  it('finds nothing in a short seeded pass', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/fuzz/main.ts', '--requests', '3000', '--seed', SEED, '--concurrency', '8'],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; message: string }) => {
      throw new Error(`the fuzzer failed:\n${error.stdout ?? error.message}`);
    });
    expect(stdout).toContain(`no findings (seed ${SEED})`);
    expect(stdout).toMatch(/sent 3\d{3} requests/);
  }, 240_000);
});
