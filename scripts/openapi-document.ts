/**
 * The OpenAPI document exactly as `modgate serve` serves it at GET /openapi.json (built from the
 * route table), for the scripts that lint it and generate the typed client from it.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApi } from '../daemon/openapi/openapi.ts';
import { ROUTES } from '../daemon/routes/index.ts';

function servedDocument(): Record<string, unknown> {
  return buildOpenApi(ROUTES);
}

/** Writes the document to a new temporary folder; returns the file's path. */
export async function writeServedDocument(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'modgate-openapi-'));
  const file = join(dir, 'openapi.json');
  await writeFile(file, `${JSON.stringify(servedDocument(), null, 2)}\n`);
  return file;
}
