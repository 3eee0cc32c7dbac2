/**
 * `npm run build:pkg`: the npm package `modgate` in pkg/ (docs/bridge.md, docs/client.md): the
 * `modgate/bridge` and `modgate/client` entry points compiled by tsc to plain JavaScript with
 * .d.ts files (tsconfig.pkg.json), and a package.json whose dependencies are exactly the packages
 * the compiled files import (nothing of the daemon's). `--pack DIR` then runs `npm pack` into DIR
 * and prints the tarball's path. The repository's own package.json stays private: the daemon
 * ships as the single binary, and `npm pack` at the root refuses (its prepack script).
 */
import { execFile } from 'node:child_process';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'pkg');

/** The package's entry points: export name → compiled file, without extension. */
export const ENTRIES = { './bridge': 'bridge/index', './client': 'client/index' } as const;

/**
 * The source folders the package may hold: the two entry points' and protocol/ beneath them. A
 * compiled file from anywhere else (the daemon, the client's generator in scripts/) fails the build.
 */
const PUBLISHED_FOLDERS = new Set(['bridge', 'client', 'protocol']);

interface RootManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Bare module names imported by the compiled files (`ws`, `zod`; not `node:fs` or `./x.js`). */
async function importedPackages(): Promise<{ runtime: Set<string>; types: Set<string> }> {
  const runtime = new Set<string>();
  const types = new Set<string>();
  for (const file of await files(OUT)) {
    if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import\()\s*'([^'.][^']*)'/g)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('node:')) continue;
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0];
      (file.endsWith('.js') ? runtime : types).add(name as string);
    }
  }
  return { runtime, types };
}

function dependencies(root: RootManifest, used: { runtime: Set<string>; types: Set<string> }) {
  const all = { ...root.devDependencies, ...root.dependencies };
  const out: Record<string, string> = {};
  for (const name of used.runtime) {
    const range = root.dependencies[name];
    if (!range) throw new Error(`pkg/ imports ${name}, which is not a dependency of modgate`);
    out[name] = range;
  }
  // A .d.ts that imports an untyped package needs its @types for a TypeScript consumer.
  for (const name of used.types) {
    const typesName = `@types/${name.replace(/^@/, '').replace('/', '__')}`;
    if (!out[name] && !all[name]) throw new Error(`pkg/ declarations import ${name}, which modgate lacks`);
    if (all[typesName]) out[typesName] = all[typesName] as string;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

export interface PackageOptions {
  /**
   * Whether tsc type-checks the sources before it emits; true unless told. The package test
   * (test/e2e/package.test.ts) says false: `npm run typecheck` has checked these sources, its
   * consumer checks the declarations emitted, and `--noCheck` emits the same files.
   */
  typeCheck?: boolean;
}

export async function buildPackage(options: PackageOptions = {}): Promise<string> {
  await rm(OUT, { recursive: true, force: true });
  const noCheck = options.typeCheck === false ? ['--noCheck'] : [];
  await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'tsconfig.pkg.json'), ...noCheck], {
    cwd: ROOT,
  });
  await checkFolders();
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as RootManifest;
  const exports: Record<string, unknown> = {};
  for (const [name, file] of Object.entries(ENTRIES)) {
    exports[name] = { types: `./${file}.d.ts`, default: `./${file}.js` };
  }
  exports['./package.json'] = './package.json';
  const manifest = {
    name: root.name,
    version: root.version,
    description: 'The modgate mod bridge (modgate/bridge) and typed REST client (modgate/client)',
    license: root.license,
    type: 'module',
    engines: root.engines,
    exports,
    sideEffects: false,
    dependencies: dependencies(root, await importedPackages()),
  };
  await writeFile(join(OUT, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const docs = await Promise.all(
    ['docs/bridge.md', 'docs/client.md'].map((f) => readFile(join(ROOT, f), 'utf8')),
  );
  await writeFile(join(OUT, 'README.md'), docs.join('\n'));
  await copyFile(join(ROOT, 'CHANGELOG.md'), join(OUT, 'CHANGELOG.md'));
  return OUT;
}

/** Refuses a package that compiled a folder not meant to be published (PUBLISHED_FOLDERS). */
async function checkFolders(): Promise<void> {
  const folders = (await readdir(OUT, { withFileTypes: true })).filter((entry) => entry.isDirectory());
  const stray = folders.map((entry) => entry.name).filter((name) => !PUBLISHED_FOLDERS.has(name));
  if (stray.length > 0) throw new Error(`pkg/ would publish ${stray.map((name) => `${name}/`).join(', ')}`);
}

/** `npm pack` of pkg/ into `destination`; returns the tarball's path. */
export async function packPackage(destination: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: OUT });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  return join(destination, (packed as { filename: string }).filename);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildPackage();
  const at = process.argv.indexOf('--pack');
  console.log(at === -1 ? `built ${OUT}` : await packPackage(process.argv[at + 1] ?? ROOT));
}
