import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run, runOk } from '../../harness/cli.ts';

const docsFolder = new URL('../../docs/', import.meta.url);
// In the order `modgate docs` lists them: by file name, so performance-history.md comes before
// performance.md ('-' sorts before '.').
const docNames = readdirSync(docsFolder)
  .filter((file) => file.endsWith('.md'))
  .sort()
  .map((file) => file.slice(0, -'.md'.length));

/** Every `modgate docs NAME` that the sources in a folder tell a user to run. */
function pointedTo(folder: URL): string[] {
  const names = new Set<string>();
  for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    for (const match of readFileSync(new URL(entry, folder), 'utf8').matchAll(
      /modgate docs ([a-z][a-z-]*)/g,
    )) {
      names.add(match[1]!);
    }
  }
  return [...names];
}

describe('modgate docs', () => {
  it('lists every doc of docs/ with its title', async () => {
    const stdout = await runOk(['docs']);
    for (const name of docNames) expect(stdout).toMatch(new RegExp(`^${name} +\\S`, 'm'));
    expect(stdout).toMatch(/^data-dir +The data dir$/m);
  });

  it('prints a doc exactly as docs/ holds it', async () => {
    expect(await runOk(['docs', 'data-dir'])).toBe(readFileSync(new URL('data-dir.md', docsFolder), 'utf8'));
  });

  it('prints one JSON document with --json', async () => {
    const listed = JSON.parse(await runOk(['docs', '--json'])) as { docs: { name: string }[] };
    expect(listed.docs.map((doc) => doc.name)).toEqual(docNames);
    const one = JSON.parse(await runOk(['docs', 'operations.md', '--json'])) as {
      name: string;
      text: string;
    };
    expect(one.name).toBe('operations');
    expect(one.text).toBe(readFileSync(new URL('operations.md', docsFolder), 'utf8'));
  });

  it('exits 2 naming the docs there are on an unknown name', async () => {
    const result = await run(['docs', 'nginx-secrets']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no doc named nginx-secrets');
    expect(result.stderr).toContain('data-dir');
  });

  it('has every doc that a command or message points a user to', () => {
    const names = ['../../cli/', '../../daemon/'].flatMap((folder) =>
      pointedTo(new URL(folder, import.meta.url)),
    );
    expect(names).toEqual(expect.arrayContaining(['data-dir', 'operations']));
    for (const name of names) expect(docNames).toContain(name);
  });

  it('cites no file a user does not have', () => {
    for (const name of docNames) {
      expect(readFileSync(new URL(`${name}.md`, docsFolder), 'utf8')).not.toMatch(/ARCHITECTURE|decision \d/);
    }
  });
});
