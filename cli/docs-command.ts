/**
 * `modgate docs [NAME] [--json]`: the operator documentation, from the binary itself. Every doc a
 * command or message points to (`modgate docs data-dir`) ships with the binary, so a user who has
 * only the executable can read it. scripts/build.ts embeds docs/*.md in the bundle at build time
 * (esbuild `define` of MODGATE_EMBEDDED_DOCS_JSON, parsed only when a doc is asked for); from a
 * checkout the files are read from docs/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';

/**
 * Replaced by scripts/build.ts with the JSON of `{ "data-dir": "# The data dir…", … }`, a string:
 * the docs' text is made only when a doc is read, not by every command
 * (docs/performance-history.md, "Memory: what an idle daemon holds"); undefined from source.
 */
declare const MODGATE_EMBEDDED_DOCS_JSON: string | undefined;

/** Every doc by name (the file name without `.md`), sorted by name. */
export function embeddedDocs(): Record<string, string> {
  if (typeof MODGATE_EMBEDDED_DOCS_JSON !== 'undefined') {
    return JSON.parse(MODGATE_EMBEDDED_DOCS_JSON) as Record<string, string>;
  }
  return readDocsFolder(new URL('../docs/', import.meta.url));
}

/** docs/*.md as `{ name: text }`; scripts/build.ts embeds what this returns. */
export function readDocsFolder(folder: URL): Record<string, string> {
  const names = readdirSync(folder)
    .filter((file) => file.endsWith('.md'))
    .sort();
  return Object.fromEntries(
    names.map((file) => [file.slice(0, -'.md'.length), readFileSync(new URL(file, folder), 'utf8')]),
  );
}

/** The first `# ` heading of a doc, or its name. */
function titleOf(name: string, text: string): string {
  return /^# (.+)$/m.exec(text)?.[1]?.trim() ?? name;
}

export function registerDocsCommand(program: Command, io: CliIo): void {
  program
    .command('docs')
    .description('print the documentation shipped with modgate (no NAME: list the docs)')
    .argument('[name]', 'a doc name, such as data-dir or operations')
    .option('--json', 'print one JSON document')
    .action((name: string | undefined, flags: { json?: boolean }) => {
      const docs = embeddedDocs();
      if (name === undefined) {
        const list = Object.entries(docs).map(([doc, text]) => ({ name: doc, title: titleOf(doc, text) }));
        if (flags.json) return printJson(io, { docs: list });
        const width = Math.max(...list.map((doc) => doc.name.length));
        return printLines(
          io,
          ...list.map((doc) => `${doc.name.padEnd(width)}  ${doc.title}`),
          '',
          'Read one with `modgate docs NAME`.',
        );
      }
      const key = name.replace(/\.md$/, '');
      const text = docs[key];
      if (text === undefined) {
        throw new UsageError(
          `no doc named ${name}; \`modgate docs\` lists them: ${Object.keys(docs).join(', ')}`,
        );
      }
      if (flags.json) return printJson(io, { name: key, title: titleOf(key, text), text });
      io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
