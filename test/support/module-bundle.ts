/**
 * One of the repository's TypeScript modules bundled by esbuild into a plain ES module, for a test
 * whose child processes import it: `node child.mjs` then starts in a few dozen milliseconds, where
 * `node --import tsx child.ts` spends one to three seconds of CPU compiling the module's graph
 * again in each child (the same reason the suite runs modgate from one bundle, cli-bundle.ts).
 * The child imports the bundle by its file URL; the module's code is the source's, unchanged.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { BUNDLE_ALIASES, OPTIONAL_NATIVE } from '../../scripts/bundle-options.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What every test bundle of the repository's modules is (this one's and cli-bundle.ts's): one ES
 * module for Node, with the modules left out and swapped as in the binary (bundle-options.ts).
 */
export const NODE_ESM_BUNDLE: BuildOptions = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  external: [...OPTIONAL_NATIVE],
  alias: { ...BUNDLE_ALIASES },
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'error',
};

/** Bundles `module` (a file URL or a path) into `folder`; the bundle's file URL, to import. */
export async function bundleModule(module: URL | string, folder: string): Promise<string> {
  const entry = module instanceof URL ? fileURLToPath(module) : module;
  const outfile = join(folder, `${entry.replace(/^.*\//, '').replace(/\.ts$/, '')}.bundle.mjs`);
  await build({ ...NODE_ESM_BUNDLE, entryPoints: [entry], outfile });
  return pathToFileURL(outfile).href;
}
