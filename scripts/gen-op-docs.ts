/**
 * Writes the op table of protocol/PROTOCOL.md §6.1 and protocol/ops.schema.json from the op
 * catalogue. `--check` writes nothing and exits 1 when either is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { opSchemas, withOpTable } from '../protocol/ops/docs.ts';

const check = process.argv.includes('--check');
const targets = [
  { path: new URL('../protocol/PROTOCOL.md', import.meta.url), render: (old: string) => withOpTable(old) },
  { path: new URL('../protocol/ops.schema.json', import.meta.url), render: () => opSchemas() },
];
let stale = 0;
for (const { path, render } of targets) {
  let old = '';
  try {
    old = readFileSync(path, 'utf8');
  } catch {
    // a file not written yet is simply stale
  }
  const next = render(old);
  if (next === old) continue;
  stale++;
  if (check) console.error(`${path.pathname} is out of date: run npx tsx scripts/gen-op-docs.ts`);
  else writeFileSync(path, next);
}
if (check && stale > 0) process.exitCode = 1;
else console.log(check ? 'op docs are up to date' : `wrote ${stale} file(s)`);
