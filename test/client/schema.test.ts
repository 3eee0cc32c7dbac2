import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderClientSchema } from '../../scripts/client-schema.ts';

describe('client/schema.ts', () => {
  it('is what npm run gen:client writes from the document the daemon serves', async () => {
    const committed = await readFile(new URL('../../client/schema.ts', import.meta.url), 'utf8');
    // On failure: the route table changed; run `npm run gen:client` and commit the result.
    expect(committed === (await renderClientSchema())).toBe(true);
  });
});
