/**
 * The CLI bundled into one file in a fresh world-readable temp folder, for tests that run it as
 * another user (`nobody`): such a child cannot reach bin/modgate.js when the checkout sits under
 * a folder only its owner may enter (a clone in a 0700 home, say). The bundle needs nothing from
 * the checkout: dependencies are inside it, and the optional native addons stay out as in the
 * binary (their packages fall back to JavaScript; ws's masking is the binary's, BUNDLE_ALIASES).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_ALIASES } from '../../scripts/build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliBundle {
  /** The bundle, to run as `node <file> <args>`. */
  readonly file: string;
  remove(): Promise<void>;
}

export async function bundleCli(): Promise<CliBundle> {
  const folder = await mkdtemp(join(tmpdir(), 'modgate-cli-'));
  await chmod(folder, 0o755);
  const file = join(folder, 'modgate.mjs');
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'cli/main.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['msgpackr-extract', 'utf-8-validate'],
    alias: { ...BUNDLE_ALIASES },
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  await chmod(file, 0o644);
  return { file, remove: () => rm(folder, { recursive: true, force: true }) };
}
