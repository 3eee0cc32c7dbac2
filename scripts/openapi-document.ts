/**
 * The OpenAPI documents exactly as `modgate serve` serves them: GET /openapi.json (built from the
 * route table), for the scripts that lint it and generate the typed client from it, and GET
 * /admin/v1/openapi.json (built from the admin routes), which lint:openapi lints too.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminOpenApi } from '../daemon/admin/admin-openapi.ts';
import { ADMIN_ROUTES } from '../daemon/admin/routes/index.ts';
import { buildOpenApi } from '../daemon/openapi/openapi.ts';
import { ROUTES } from '../daemon/routes/index.ts';

function servedDocument(): Record<string, unknown> {
  return buildOpenApi(ROUTES);
}

/** Writes the document (the admin API's with `which: 'admin'`) to a new temporary folder; returns the file's path. */
export async function writeServedDocument(which: 'public' | 'admin' = 'public'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'modgate-openapi-'));
  const file = join(dir, 'openapi.json');
  const document = which === 'admin' ? adminOpenApi(ADMIN_ROUTES) : servedDocument();
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
