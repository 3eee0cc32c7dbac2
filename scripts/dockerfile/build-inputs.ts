/**
 * Does the build stage get every file `npm run build` reads? `COPY . .` sends the checkout less
 * what .dockerignore leaves out; a file the build needs but the list drops would fail the image
 * build, which this machine cannot run. The files: what esbuild bundles from the two entry points
 * and the build script itself (their import graphs, node_modules aside: `npm ci` installs
 * those), the docs the binary carries, the Node.js pin, and the package files.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { DockerIgnore } from './dockerignore.ts';
import type { Check } from './static-checks.ts';

const ENTRY_POINTS = ['cli/main.ts', 'cli/sea-main.ts', 'scripts/build.ts'];
const READ_BY_THE_BUILD = ['package.json', 'package-lock.json', 'scripts/embedded-node.json'];

export async function checkBuildInputs(context: string, ignore: DockerIgnore): Promise<Check> {
  const result = await build({
    absWorkingDir: context,
    entryPoints: ENTRY_POINTS,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    write: false,
    outdir: 'out',
    logLevel: 'silent',
  });
  const docs = readdirSync(join(context, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  const inputs = [...Object.keys(result.metafile.inputs), ...docs, ...READ_BY_THE_BUILD];
  const dropped = inputs.filter((path) => ignore.excludes(path));
  return dropped.length === 0
    ? { level: 'ok', text: `.dockerignore keeps all ${inputs.length} files npm run build reads` }
    : { level: 'fail', text: `.dockerignore drops files npm run build reads: ${dropped.join(', ')}` };
}
