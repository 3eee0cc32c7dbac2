import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NOT_OURS = new Set(['node_modules', 'dist', 'pkg', 'coverage', '.git']);

/** The repository's own sources, tests and pages, as paths relative to its root. */
function ownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (NOT_OURS.has(entry.name)) return [];
    if (entry.isDirectory()) return ownFiles(path);
    return /\.(ts|js|md)$/.test(entry.name) ? [relative(ROOT, path)] : [];
  });
}

/** What a reader follows in a file: a page's whole text, a source file's comments. */
function citingText(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (file.endsWith('.md')) return text;
  return text
    .split('\n')
    .map((line) => (/^\s*(\/\/|\/\*|\*)/.test(line) ? line : (line.split(' // ')[1] ?? '')))
    .join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const headings = readFileSync(join(ROOT, file), 'utf8').match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((heading) => anchorOf(heading.replace(/^#+ /, ''))));
}

/** Where a cited path may be: from the root, beside the citing file, in docs/ or protocol/. */
function resolveCitation(file: string, path: string): string | undefined {
  const candidates = [path, join(dirname(file), path), join('docs', path), join('protocol', path)];
  return candidates.map(normalize).find((candidate) => existsSync(join(ROOT, candidate)));
}

/** Every document, or heading of one, that a file cites and that is not there. */
function brokenCitations(file: string): string[] {
  const broken: string[] = [];
  for (const match of citingText(file).matchAll(
    /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[\w.-]*[\w-]\.md)(?:#([\w-]+))?/g,
  )) {
    const [cited, path, anchor] = match as unknown as [string, string, string | undefined];
    const target = resolveCitation(file, path);
    if (target === undefined || (anchor !== undefined && !anchorsIn(target).has(anchor))) {
      broken.push(`${file}: ${cited}`);
    }
  }
  return broken;
}

describe('document citations', () => {
  const files = ownFiles();

  // CHANGELOG.md records history: the files its old entries name may since have moved.
  it('names only documents and headings that exist, in source comments and pages', () => {
    const cited = files.filter((file) => file !== 'CHANGELOG.md');
    expect(cited.length).toBeGreaterThan(100);
    expect(cited.flatMap(brokenCitations)).toEqual([]);
  });

  it('cites the API spec only through the documents of this repository', () => {
    const citing = files.filter((file) => /api-v1\.md/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(citing).toEqual([]);
  });
});
