/**
 * Tests sit where a reader looks for them (docs/architecture.md, "Where tests live"): test/
 * mirrors the source tree, a unit test named like a module sits beside that module's mirror, and
 * every test that starts `modgate` as a process is in test/e2e/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST = join(ROOT, 'test');
/** Folders of test/ that mirror no source folder: the process tests and the tests' own helpers. */
const OWN_FOLDERS = ['e2e', 'support'];

const testFiles = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts'))
  .map((path) => path.split('\\').join('/'));
const unitTests = testFiles.filter((path) => path.endsWith('.test.ts') && !isOwn(path));

function isOwn(path: string): boolean {
  return OWN_FOLDERS.some((folder) => path.startsWith(`${folder}/`));
}

/** Every module's path under `layer/` (e.g. `mod-sim/handlers/economy-coins.ts`), by file name. */
function modulesOf(layer: string): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  if (!existsSync(join(ROOT, layer))) return byName;
  for (const path of readdirSync(join(ROOT, layer), { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.ts')) continue;
    const name = basename(path);
    byName.set(name, [...(byName.get(name) ?? []), join(layer, path)]);
  }
  return byName;
}

describe('the layout of test/', () => {
  it('mirrors a source folder with every folder but e2e/ and support/', () => {
    const folders = [...new Set(testFiles.map((path) => dirname(path)))].filter(
      (d) => d !== '.' && !isOwn(`${d}/`),
    );
    expect(folders.filter((folder) => !existsSync(join(ROOT, folder)))).toEqual([]);
  });

  it('keeps a unit test named like a module of its layer beside that module’s mirror', () => {
    const misplaced = unitTests.flatMap((path) => {
      const module = basename(path).replace(/\.test\.ts$/, '.ts');
      const [layer] = path.split('/');
      const sources = modulesOf(layer as string).get(module) ?? [];
      const mirrored = join(dirname(path), module);
      return sources.length === 0 || sources.includes(mirrored)
        ? []
        : [`${path} (module: ${sources.join(', ')})`];
    });
    expect(misplaced).toEqual([]);
  });

  it('keeps every test that starts modgate as a process in test/e2e/', () => {
    const starters = testFiles.filter((path) => {
      const text = readFileSync(join(TEST, path), 'utf8');
      return /harness\/processes\.ts'|bin\/modgate\.js'/.test(text);
    });
    expect(starters.filter((path) => !path.startsWith('e2e/') && !path.startsWith('support/'))).toEqual([]);
  });
});
