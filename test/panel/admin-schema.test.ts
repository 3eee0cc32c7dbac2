import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ADMIN_SCHEMA_FILE, renderAdminSchema } from '../../scripts/admin-schema.ts';

describe('panel/admin-schema.ts', () => {
  it('is what npm run gen:admin-types writes from the admin API document', async () => {
    const committed = await readFile(ADMIN_SCHEMA_FILE, 'utf8');
    // On failure: an admin route changed; run `npm run gen:admin-types` and commit the result.
    expect(committed === (await renderAdminSchema())).toBe(true);
  });
});
