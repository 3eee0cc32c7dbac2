/**
 * `npm run gen:admin-types`: writes panel/admin-schema.ts, the admin API's types (see
 * scripts/admin-schema.ts). `--check` writes nothing and exits 1 when the committed file is out of
 * date (test/panel/admin-schema.test.ts runs the same check).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { ADMIN_SCHEMA_FILE, renderAdminSchema } from './admin-schema.ts';

const check = process.argv.includes('--check');
const next = await renderAdminSchema();
const old = await readFile(ADMIN_SCHEMA_FILE, 'utf8').catch(() => '');
if (next === old) {
  console.log('panel/admin-schema.ts is up to date');
} else if (check) {
  console.error('panel/admin-schema.ts is out of date: run npm run gen:admin-types');
  process.exitCode = 1;
} else {
  await writeFile(ADMIN_SCHEMA_FILE, next);
  console.log('wrote panel/admin-schema.ts');
}
