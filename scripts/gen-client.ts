/**
 * `npm run gen:client`: writes client/schema.ts, the types of the typed client (docs/client.md),
 * with openapi-typescript from the document the daemon serves. `--check` writes nothing and exits
 * 1 when the committed file is out of date (test/client/schema.test.ts runs the same check).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderClientSchema } from './client-schema.ts';

const target = fileURLToPath(new URL('../client/schema.ts', import.meta.url));
const check = process.argv.includes('--check');
const next = await renderClientSchema();
const old = await readFile(target, 'utf8').catch(() => '');
if (next === old) {
  console.log('client/schema.ts is up to date');
} else if (check) {
  console.error('client/schema.ts is out of date: run npm run gen:client');
  process.exitCode = 1;
} else {
  await writeFile(target, next);
  console.log('wrote client/schema.ts');
}
