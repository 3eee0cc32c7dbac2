/**
 * The CLI bundled by esbuild into one ES module in a fresh world-readable temp folder, as
 * scripts/build.ts bundles it for the binary (the same modules left out and swapped,
 * scripts/bundle-options.ts). The suite runs modgate from it (cli-bundle-setup.ts): a start no
 * longer goes through tsx's loader over the daemon's whole module graph. Tests that run the CLI
 * as another user (`nobody`) run it too: such a child cannot reach bin/modgate.js when the
 * checkout sits under a folder only its owner may enter (a clone in a 0700 home, say).
 *
 * It is the program the source is, not the binary: each module's `import.meta.url` stays its own
 * source file's (the binary rewrites it to the executable's and carries the docs and the panel
 * inside), so `modgate docs` reads docs/ and serve builds the panel from panel/ as from a
 * checkout, and esbuild, which only a checkout has, is loaded from the checkout's node_modules.
 * The optional native addons stay out as in the binary (their packages fall back to JavaScript;
 * none is installed here). A source map beside it, read under `--enable-source-maps`, makes a
 * child's stack traces name the .ts files; an inline one cost each start about 0.15 s more CPU
 * (node decodes it as it loads the bundle), a linked one next to nothing.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { CHECKOUT_ONLY } from '../../scripts/bundle-options.ts';
import { NODE_ESM_BUNDLE } from './module-bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'cli/main.ts');

export interface CliBundle {
  /** The bundle, to run as `node --enable-source-maps <file> <args>` (`program`). */
  readonly file: string;
  /** How to run it: harness `start`'s `program`. */
  readonly program: readonly string[];
  remove(): Promise<void>;
}

export async function bundleCli(): Promise<CliBundle> {
  const folder = await mkdtemp(join(tmpdir(), 'modgate-cli-'));
  await chmod(folder, 0o755);
  const file = join(folder, 'modgate.mjs');
  await build({
    ...NODE_ESM_BUNDLE,
    entryPoints: [ENTRY],
    outfile: file,
    plugins: [sourceFileUrls(), fromCheckout(CHECKOUT_ONLY)],
    // The mappings are what a stack trace needs; the sources stay in the checkout.
    sourcemap: 'linked',
    sourcesContent: false,
  });
  await Promise.all([chmod(file, 0o644), chmod(`${file}.map`, 0o644)]);
  return {
    file,
    program: [process.execPath, '--enable-source-maps', file],
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/**
 * `import.meta.url` in each of the checkout's modules is its own file's URL, as from source
 * (panel-bundle.ts finds panel/ by it, docs-command.ts docs/). The entry keeps the bundle's: it
 * asks whether it is the script node was started with (cli/main.ts, `isEntryPoint`).
 */
function sourceFileUrls(): Plugin {
  return {
    name: 'modgate-source-file-urls',
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path === ENTRY || args.path.includes('/node_modules/')) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** `packages` left out of the bundle and loaded from the checkout's node_modules by absolute URL. */
function fromCheckout(packages: readonly string[]): Plugin {
  const require = createRequire(join(ROOT, 'package.json'));
  return {
    name: 'modgate-from-checkout',
    setup(plugin) {
      plugin.onResolve({ filter: /^[^./]/ }, (args) =>
        packages.includes(args.path)
          ? { path: pathToFileURL(require.resolve(args.path)).href, external: true }
          : undefined,
      );
    },
  };
}
