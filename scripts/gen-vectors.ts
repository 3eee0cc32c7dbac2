/**
 * Regenerates protocol/vectors/golden.json (PROTOCOL §8) from the fixed golden inputs. Same
 * inputs, same bytes: run it after a deliberate wire change and commit the diff with the change.
 *
 *   npx tsx scripts/gen-vectors.ts [--check]
 *
 * With --check it writes nothing and exits 1 when the file on disk is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildEventRefusalVectors } from '../daemon/events/refusal-vectors.ts';
import { buildGoldenVectors } from '../protocol/vectors/generate.ts';

const target = fileURLToPath(new URL('../protocol/vectors/golden.json', import.meta.url));
// The protocol layer's sections, then what the reference daemon refuses (PROTOCOL §8.4), which
// runs the daemon's checks and so is built here rather than inside protocol/.
const vectors = { ...buildGoldenVectors(), event_refusals: buildEventRefusalVectors() };
const text = JSON.stringify(vectors, null, 2) + '\n';

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    console.error(`${target} is stale; run: npx tsx scripts/gen-vectors.ts`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
