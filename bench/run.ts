/**
 * `npm run bench`: runs every benchmark in bench/ one after another, each in its own process so
 * none warms up or slows down another. Each benchmark prints its own side-by-side ratio against
 * its baseline. `npm run bench -- protocol` runs only the files whose name contains "protocol".
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts' && name.includes(filter))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${here}${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
if (files.length === 0) console.log(`no benchmark matches "${filter}"`);
process.exitCode = failed > 0 ? 1 : 0;
