/**
 * No import cycle in daemon/, type-only imports included (docs/architecture.md, "Import rules"):
 * a cycle means two modules that each need the other to be read, and a type is moved to the
 * module that owns it instead. madge walks the import graph; the fixture shows it would see one.
 */
import madge from 'madge';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The import graph of the TypeScript files under `folder`, `import type` edges counted. */
function graphOf(folder: string) {
  return madge(`${ROOT}${folder}`, {
    fileExtensions: ['ts'],
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
}

/** Every cycle among the TypeScript files under `folder`. */
async function cyclesUnder(folder: string): Promise<string[][]> {
  return (await graphOf(folder)).circular();
}

describe('the import graph of daemon/', () => {
  it('has no cycle, type-only imports included', async () => {
    expect(await cyclesUnder('daemon')).toEqual([]);
  }, 60_000);

  it('holds every module of daemon/, each sub-folder included (group/ among them)', async () => {
    const modules = readdirSync(`${ROOT}daemon`, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts'))
      .map((path) => path.split('\\').join('/'));
    // madge follows imports out of the folder too (protocol/, package.json): daemon/'s own are these.
    const walked = Object.keys((await graphOf('daemon')).obj()).filter((path) => !path.startsWith('../'));
    expect(modules.filter((path) => path.startsWith('group/')).length).toBeGreaterThan(0);
    expect(walked.sort()).toEqual(modules.sort());
  }, 60_000);

  it('is walked by a check that finds a cycle made of type-only imports', async () => {
    expect(await cyclesUnder('test/support/import-cycle')).toEqual([['first.ts', 'second.ts']]);
  });
});
