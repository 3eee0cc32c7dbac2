/**
 * The single executable's main script (scripts/build.ts). Node compiles a single executable's
 * main script whole before running a line of it, and the CLI bundle is 1.9 MB: compiling it is
 * most of what `modgate --version` used to cost. So the main script is this small one: it
 * answers `--version` from the version text alone, and for any other command compiles the CLI
 * bundle, which the executable carries as an asset (already wrapped as a CommonJS module
 * function), and runs it as the main script would have been run, with the executable's own
 * `require` (built-in modules only, as before).
 *
 * The compile starts from the V8 code cache the build made of that bundle (a second asset,
 * scripts/code-cache.ts): V8 deserializes the bytecode of the bundle and of every function
 * `serve` runs while loading, rather than compiling them. Should V8 ever refuse the cache, it
 * compiles the source as it would have without one; nothing else changes.
 */
import { getRawAsset } from 'node:sea';
import { Script } from 'node:vm';
import { isVersionQuery, versionText } from './version-text.ts';

/** The asset names scripts/build.ts stores the wrapped CLI bundle and its code cache under. */
const CLI_ASSET = 'modgate.cjs';
const CODE_CACHE_ASSET = 'modgate.cjs.v8-cache';

const argv = process.argv.slice(2);
if (isVersionQuery(argv)) {
  process.stdout.write(`${versionText()}\n`);
} else {
  // The build keeps the bundle ASCII (scripts/build.ts), so latin1 reads it as UTF-8 would,
  // by a plain copy: decoding 1.9 MB as UTF-8 showed in the start-up profile.
  const source = Buffer.from(getRawAsset(CLI_ASSET) as ArrayBuffer).toString('latin1');
  const script = new Script(source, {
    filename: CLI_ASSET,
    // The asset's own bytes, not a copy: V8 only reads them.
    cachedData: new Uint8Array(getRawAsset(CODE_CACHE_ASSET) as ArrayBuffer),
  });
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} };
  run(module.exports, require, module, __filename, __dirname);
}
