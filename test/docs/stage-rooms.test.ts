/**
 * Stages live in `stages/`, and only stages do (docs/pipeline.md, "Where each stage lives";
 * docs/admin.md, "How a request is handled"). The table in docs/pipeline.md is the map a reader
 * follows from a stage of the diagram to its module: each stage's own module must be in
 * `daemon/http/stages/`, each module the table names as shared by several stages must sit beside
 * them in `daemon/http/`, and every file of either `stages/` folder must be named in its page,
 * so a stage written one folder up, a helper moved in among them or a stage nobody mapped fails
 * here rather than in a reader's ten minutes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PIPELINE = readFileSync(`${ROOT}/docs/pipeline.md`, 'utf8');
const ADMIN = readFileSync(`${ROOT}/docs/admin.md`, 'utf8');

/** The rows of the table under "## Where each stage lives": [stages, module cell]. */
function stageTable(): [string, string][] {
  const section = PIPELINE.split('\n## Where each stage lives\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| stages') && !line.startsWith('| ---'))
    .map((line) => {
      const [stages = '', module = ''] = line.slice(2, -2).split(' | ');
      return [stages, module];
    });
}

/** The `x.ts` paths quoted in a cell: the first is the row's home, the rest what it uses. */
function modulesIn(cell: string): string[] {
  return [...cell.matchAll(/`([\w/-]+\.ts)`/g)].map((match) => match[1] as string);
}

function stageFiles(folder: string): string[] {
  return readdirSync(`${ROOT}/${folder}`).filter((name) => name.endsWith('.ts'));
}

describe('where the stages live', () => {
  it('has a table to read (docs/pipeline.md, "Where each stage lives")', () => {
    expect(stageTable().length).toBeGreaterThan(5);
  });

  it('puts every module the table names where it says, a stage’s own in stages/', () => {
    const misplaced = stageTable().flatMap(([, cell]) =>
      modulesIn(cell).filter(
        (path) => !path.includes('/admin/') && !existsSync(`${ROOT}/daemon/http/${path}`),
      ),
    );
    expect(misplaced).toEqual([]);
  });

  it('homes every row in stages/ unless the row says it is not a stage', () => {
    const outside = stageTable().flatMap(([, cell]) => {
      const [home = ''] = modulesIn(cell);
      return home.startsWith('stages/') || cell.includes('not a stage') ? [] : [home];
    });
    expect(outside).toEqual([]);
  });

  it('keeps the modules several stages share beside stages/, not in it', () => {
    const shared = stageTable().flatMap(([, cell]) => {
      // "used by `stages/…`" names the stages that use it, not modules it uses.
      const [home, ...uses] = modulesIn(cell.replace(/used by [^)]*/, ''));
      const helpers = cell.includes('not a stage') ? [home as string] : [];
      return [...helpers, ...uses].filter((path) => path.startsWith('stages/'));
    });
    expect(shared).toEqual([]);
  });

  it('names every file of daemon/http/stages/ as a stage’s home in the table', () => {
    const homes = new Set(stageTable().map(([, cell]) => modulesIn(cell)[0]));
    expect(stageFiles('daemon/http/stages').filter((name) => !homes.has(`stages/${name}`))).toEqual([]);
  });

  it('names every file of daemon/admin/stages/ in docs/admin.md, "How a request is handled"', () => {
    const section = ADMIN.split('\n## How a request is handled\n')[1]?.split('\n## ')[0] ?? '';
    expect(section).toContain('`daemon/admin/stages/`');
    expect(stageFiles('daemon/admin/stages').filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
