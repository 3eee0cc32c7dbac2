/**
 * The x64 single executable is reproducible: building the same source again gives the same
 * sha256, so a published `modgate.sha256` can be checked by building it again (docs/operations.md).
 * A build property, beside the arm64 executable's (binary-arm64.test.ts) and the packages': it
 * builds the binary twice, minutes of CPU that `npm test` leaves to `npm run test:dist`.
 *
 * Which binary: $MODGATE_BINARY when set (.ci/run builds dist/modgate and points here, so CI
 * compares the artifact it ships with a second build); otherwise two builds from the current
 * source.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../../../scripts/build.ts';

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'modgate-reproducible-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the x64 single executable', () => {
  it('is reproducible: building the same source again gives the same sha256', async () => {
    const given = process.env['MODGATE_BINARY'];
    const first = given ? resolve(given) : (await buildBinary({ outDir: join(work, 'first') })).binary;
    const again = await buildBinary({ outDir: join(work, 'again') });
    const sha256 = createHash('sha256')
      .update(await readFile(first))
      .digest('hex');
    expect(again.sha256).toBe(sha256);
  }, 600_000);
});
