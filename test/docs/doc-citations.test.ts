/**
 * Every page, heading and PROTOCOL section the repository cites is there: a citation is a
 * promise to a reader that following it lands on the text meant, and a heading renamed or moved
 * breaks that promise silently unless something reads every citation. The forms read are the
 * ones the code base writes: `docs/<page>.md`, with `#anchor`, with `, "Title"` (with or
 * without the comma, in parentheses, over a line break, several titles in a row) and
 * `PROTOCOL §N.N`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// package-lock.json is npm's, and the largest file of the tree: it cites nothing of ours.
const NOT_OURS = new Set(['node_modules', 'dist', 'pkg', 'coverage', '.git', 'package-lock.json']);
const PROTOCOL = 'protocol/PROTOCOL.md';

/** A citation of a section: where it is written, and the section it names. */
interface SectionCitation {
  line: number;
  path: string;
  title: string;
}

/** The repository's own sources, tests, pages and scripts, as paths relative to its root. */
function ownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (NOT_OURS.has(entry.name)) return [];
    if (entry.isDirectory()) return ownFiles(path);
    return /\.(ts|js|md|sh|json)$/.test(entry.name) ? [relative(ROOT, path)] : [];
  });
}

const texts = new Map<string, string>();
function textOf(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    text = readFileSync(join(ROOT, file), 'utf8');
    texts.set(file, text);
  }
  return text;
}

/**
 * What a reader follows in a file: a page's whole text, a source file's comments. A path alone is
 * read only there: in code, a string such as a file name to write is no citation.
 */
function commentText(file: string, text: string): string {
  if (file.endsWith('.md')) return text;
  const comment = file.endsWith('.sh') ? /^\s*#/ : /^\s*(\/\/|\/\*|\*)/;
  return text
    .split('\n')
    .map((line) => (comment.test(line) ? line : (line.split(' // ')[1] ?? '')))
    .join('\n');
}

/** The line of each index of a text, asked in increasing order: one pass over the text in all. */
function lineCounter(text: string): (index: number) => number {
  let line = 1;
  let at = 0;
  return (index) => {
    for (; at < index; at++) if (text.charCodeAt(at) === 10) line++;
    return line;
  };
}

/** A title as a reader sees it: comment markers of a wrapped line, backticks and runs of space gone. */
function plainTitle(title: string): string {
  return title
    .replace(/\n\s*(?:\*|\/\/|#)?/g, ' ')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A page's headings: their titles as written and GitHub's anchors of them. */
interface Headings {
  titles: Set<string>;
  anchors: Set<string>;
}

const headingCache = new Map<string, Headings>();
function headingsOf(file: string): Headings {
  let headings = headingCache.get(file);
  if (headings === undefined) {
    // Fenced blocks (a diagram, a shell session) hold lines that start with # and are no headings.
    const prose = textOf(file).replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
    const titles = (prose.match(/^#{1,6} .*$/gm) ?? []).map((line) => line.replace(/^#+ /, '').trim());
    headings = {
      titles: new Set(titles.map(plainTitle)),
      anchors: new Set(titles.map(anchorOf)),
    };
    headingCache.set(file, headings);
  }
  return headings;
}

/** A path to a page, as written: under a folder, relative to the citing file, or a bare file name. */
const PAGE_PATH = /^(?:\.{1,2}\/|[\w-]+\/)*[\w.-]*[\w-]\.md$/;
const PATH_CHAR = /[\w./-]/;

/**
 * Every path to a page in a text, with where it starts and ends: found from each `.md`, looking
 * back for where the path begins, which is far faster than a pattern tried at every position of
 * the repository's five megabytes.
 */
function* pagePaths(text: string): Generator<{ index: number; path: string; end: number }> {
  for (let at = text.indexOf('.md'); at !== -1; at = text.indexOf('.md', at + 3)) {
    const end = at + 3;
    if (/\w/.test(text[end] ?? '')) continue;
    let index = at;
    while (index > 0 && PATH_CHAR.test(text[index - 1]!)) index--;
    const path = text.slice(index, end);
    if (PAGE_PATH.test(path)) yield { index, path, end };
  }
}

const ANCHOR = /#([\w-]+)/y;
const TITLE = /`?,?[ \t]*(?:\n\s*(?:\*|\/\/|#)?\s*)?\(?["“]([^"”\n]{1,100}(?:\n[^"”\n]{1,100})?)["”]/y;
const FURTHER_TITLE = /\s*(?:,|;|and|or)\s*["“]([^"”\n]{1,100})["”]/y;

/** The match of a sticky pattern at an index of a text, if it matches there. */
function matchAt(pattern: RegExp, text: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(text);
}

/** Every `<page>.md, "Title"` in a text, each title of a run (`"A" and "B"`) a citation of its own. */
function citedTitles(text: string): SectionCitation[] {
  const cited: SectionCitation[] = [];
  const lineAt = lineCounter(text);
  for (const { index, path, end } of pagePaths(text)) {
    const first = matchAt(TITLE, text, end);
    if (first === null) continue;
    const line = lineAt(index);
    cited.push({ line, path, title: plainTitle(first[1]!) });
    for (let next = matchAt(FURTHER_TITLE, text, TITLE.lastIndex); next; next = FURTHER_TITLE.exec(text)) {
      cited.push({ line, path, title: plainTitle(next[1]!) });
    }
  }
  return cited;
}

/** Every `PROTOCOL §N.N` (or `PROTOCOL.md §N`) in a text, as the section number it names. */
function citedProtocolSections(text: string): SectionCitation[] {
  if (!text.includes('PROTOCOL')) return [];
  const lineAt = lineCounter(text);
  return [...text.matchAll(/PROTOCOL(?:\.md)?,? §(\d+(?:\.\d+)*)/g)].map((match) => ({
    line: lineAt(match.index),
    path: PROTOCOL,
    title: `§${match[1]!}`,
  }));
}

/** Where a cited path may be: from the root, beside the citing file, in docs/ or protocol/. */
function resolveCitation(file: string, path: string): string | undefined {
  const candidates = [path, join(dirname(file), path), join('docs', path), join('protocol', path)];
  return candidates.map(normalize).find((candidate) => existsSync(join(ROOT, candidate)));
}

/**
 * Every document a file's comments (a page's text) cite that is not there, and every anchor the
 * file names anywhere, strings included, that its page has no heading for.
 */
function brokenPathCitations(file: string, whole = textOf(file)): string[] {
  if (!whole.includes('.md')) return [];
  const broken = new Set<string>();
  const check = (text: string, anchoredOnly: boolean): void => {
    const lineAt = lineCounter(text);
    for (const { index, path, end } of pagePaths(text)) {
      const anchor = matchAt(ANCHOR, text, end)?.[1];
      if (anchoredOnly && anchor === undefined) continue;
      const target = resolveCitation(file, path);
      if (target === undefined || (anchor !== undefined && !headingsOf(target).anchors.has(anchor))) {
        broken.add(`${file}:${lineAt(index)}: ${path}${anchor === undefined ? '' : `#${anchor}`}`);
      }
    }
  };
  // commentText keeps every line where it was, so a citation in a comment counts once.
  check(commentText(file, whole), false);
  if (!file.endsWith('.md') && whole.includes('.md#')) check(whole, true);
  return [...broken];
}

/** A PROTOCOL heading names its section as `§6.4 Op ids`: the number is what a citation gives. */
function hasProtocolSection(section: string): boolean {
  return [...headingsOf(PROTOCOL).titles].some((title) => title.split(' ')[0] === section);
}

/** Every section a text names: headings of pages by title, PROTOCOL's sections by number. */
function citedSections(text: string): SectionCitation[] {
  return [...citedTitles(text), ...citedProtocolSections(text)];
}

/** Each of a file's cited sections that its page has no heading for, as `file:line: what is missing`. */
function brokenSectionCitations(file: string, cited: SectionCitation[]): string[] {
  return cited.flatMap(({ line, path, title }) => {
    if (path === PROTOCOL && title.startsWith('§')) {
      return hasProtocolSection(title) ? [] : [`${file}:${line}: ${PROTOCOL} has no section ${title}`];
    }
    const target = resolveCitation(file, path);
    if (target !== undefined && headingsOf(target).titles.has(title)) return [];
    return [`${file}:${line}: ${path} has no heading "${title}"`];
  });
}

describe('the citation extractor', () => {
  // Built from parts, so that this file does not itself cite these made-up sections.
  const page = ['docs', 'errors.md'].join('/');

  it('finds a title after a comma, a space or a parenthesis, and over a wrapped comment line', () => {
    const text = [
      `/** See ${page}, "Exit codes" and (${page} ("Before routing")), or ${page},`,
      ` * "Codes of the admin API". ${page} "Forward compatibility" too. */`,
    ].join('\n');
    expect(citedTitles(text)).toEqual([
      { line: 1, path: page, title: 'Exit codes' },
      { line: 1, path: page, title: 'Before routing' },
      { line: 1, path: page, title: 'Codes of the admin API' },
      { line: 2, path: page, title: 'Forward compatibility' },
    ]);
  });

  it('reads every title of a run as a citation of its own', () => {
    const titles = citedTitles(`(${page}, "Exit codes" and "Before routing"; "Unknown")`);
    expect(titles.map(({ title }) => title)).toEqual(['Exit codes', 'Before routing', 'Unknown']);
  });

  it('joins a title wrapped over two comment lines', () => {
    expect(citedTitles(`// ${page}, "Codes of the\n// admin API"`)).toEqual([
      { line: 1, path: page, title: 'Codes of the admin API' },
    ]);
  });

  it('reads an anchor in a string as a citation, and a bare path only in a comment', () => {
    const text = [
      `const a = '${page}#no-such-heading';`,
      `const b = 'moon.md';`,
      `// ${page}#the-codes, and moon.md`,
    ].join('\n');
    expect(brokenPathCitations('cli/moon.ts', text)).toEqual([
      'cli/moon.ts:3: moon.md',
      `cli/moon.ts:1: ${page}#no-such-heading`,
    ]);
  });

  it('finds PROTOCOL sections with and without .md', () => {
    const text = `PROTOCOL §6.4 says so;\nPROTOCOL.md §9 too, and RFC 9112 §3.2 is not ours`;
    expect(citedProtocolSections(text).map(({ line, title }) => [line, title])).toEqual([
      [1, '§6.4'],
      [2, '§9'],
    ]);
  });

  it('fails a made-up title or section, naming the file, the line and what is missing', () => {
    const protocol = 'PROTOCOL';
    const text = [
      `// ${page}, "Before routing", ${protocol} §6.4`,
      `// ${page}, "Exit codes of the moon", ${protocol} §6.40`,
    ].join('\n');
    expect(brokenSectionCitations('cli/moon.ts', citedSections(text))).toEqual([
      `cli/moon.ts:2: ${page} has no heading "Exit codes of the moon"`,
      'cli/moon.ts:2: protocol/PROTOCOL.md has no section §6.40',
    ]);
  });
});

describe('document citations', () => {
  const files = ownFiles();
  // CHANGELOG.md records history: the files and sections its old entries name may since have moved.
  const citing = files.filter((file) => file !== 'CHANGELOG.md');

  it('names only documents and anchors that exist, in source comments and pages', () => {
    expect(citing.length).toBeGreaterThan(100);
    expect(
      citing.filter((file) => !file.endsWith('.json')).flatMap((file) => brokenPathCitations(file)),
    ).toEqual([]);
  });

  it('names only sections that are headings of their page, in comments, strings and pages', () => {
    const cited = citing.map((file) => [file, citedSections(textOf(file))] as const);
    expect(cited.flatMap(([, sections]) => sections).length).toBeGreaterThan(100);
    expect(cited.flatMap(([file, sections]) => brokenSectionCitations(file, sections))).toEqual([]);
  });

  it('cites the API spec only through the documents of this repository', () => {
    expect(citing.filter((file) => /api-v1\.md/.test(textOf(file)))).toEqual([]);
  });
});
