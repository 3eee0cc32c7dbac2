/**
 * The single executable's main script (scripts/build.ts). Node compiles a single executable's
 * main script whole before running a line of it, and the CLI bundle is 1.3 MB: compiling it is
 * most of what `modgate --version` used to cost. So the main script is this small one: it
 * answers `--version` from the version text alone, and for any other command compiles the CLI
 * bundle, which the executable carries as an asset, and runs it as the main script would have
 * been run, with the executable's own `require` (built-in modules only, as before).
 */
import { getAsset } from 'node:sea';
import { runInThisContext } from 'node:vm';
import { isVersionQuery, versionText } from './version-text.ts';

/** The asset name scripts/build.ts stores the CLI bundle under (its `CLI_ASSET`). */
const CLI_ASSET = 'modgate.cjs';

const argv = process.argv.slice(2);
if (isVersionQuery(argv)) {
  process.stdout.write(`${versionText()}\n`);
} else {
  const source = getAsset(CLI_ASSET, 'utf8');
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const run = runInThisContext(wrapper, { filename: CLI_ASSET }) as (...args: unknown[]) => void;
  const module = { exports: {} };
  run(module.exports, require, module, __filename, __dirname);
}
