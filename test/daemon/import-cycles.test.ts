/**
 * No import cycle in daemon/, type-only imports included (docs/architecture.md, "Import rules"):
 * a cycle means two modules that each need the other to be read, and a type is moved to the
 * module that owns it instead. madge walks the import graph; the fixture shows it would see one.
 */
import madge from 'madge';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every cycle among the TypeScript files under `folder`, `import type` edges counted. */
async function cyclesUnder(folder: string): Promise<string[][]> {
  const graph = await madge(`${ROOT}${folder}`, {
    fileExtensions: ['ts'],
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  return graph.circular();
}

describe('the import graph of daemon/', () => {
  it('has no cycle, type-only imports included', async () => {
    expect(await cyclesUnder('daemon')).toEqual([]);
  }, 60_000);

  it('is walked by a check that finds a cycle made of type-only imports', async () => {
    expect(await cyclesUnder('test/support/import-cycle')).toEqual([['first.ts', 'second.ts']]);
  });
});
