/**
 * `npm run gen:client` (also `npm run gen:admin-types`): writes the generated API types with
 * openapi-typescript: client/schema.ts, the typed client's (docs/client.md), from the document the
 * daemon serves, and panel/admin-schema.ts, the admin API's (scripts/admin-schema.ts). `--check`
 * writes nothing and exits 1 when a committed file is out of date (test/client/schema.test.ts and
 * test/panel/admin-schema.test.ts run the same check).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderClientSchema } from './client-schema.ts';
import { ADMIN_SCHEMA_FILE, renderAdminSchema } from './admin-schema.ts';

const GENERATED = [
  { file: new URL('../client/schema.ts', import.meta.url), render: renderClientSchema },
  { file: ADMIN_SCHEMA_FILE, render: renderAdminSchema },
];

const check = process.argv.includes('--check');
for (const { file, render } of GENERATED) {
  const name = fileURLToPath(file).slice(fileURLToPath(new URL('../', import.meta.url)).length);
  const next = await render();
  const old = await readFile(file, 'utf8').catch(() => '');
  if (next === old) {
    console.log(`${name} is up to date`);
  } else if (check) {
    console.error(`${name} is out of date: run npm run gen:client`);
    process.exitCode = 1;
  } else {
    await writeFile(file, next);
    console.log(`wrote ${name}`);
  }
}
