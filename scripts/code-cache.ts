/**
 * The V8 code cache the single executable starts from (scripts/build.ts, step "cache";
 * docs/performance-history.md, "Second pass: the start-up code cache"). Compiling the 1.9 MB CLI
 * bundle, and then each function of it the first time it runs, was a third of the CPU
 * `modgate serve` spent before it was ready. A code cache holds that compiled bytecode, so the
 * executable deserializes it instead.
 *
 * Node's own `useCodeCache` is not used: V8 does not write the same bytes twice (its hash and
 * random seeds differ per process, and background threads change what is compiled when), and the
 * build must give the same sha256 for the same source. So the cache is made here, by the very
 * Node the executable embeds, run with `--predictable --random-seed=1` (fixed seeds, one thread):
 * the cache bytes are then the same on every build. Those flags do not enter V8's flag hash, so a
 * plain `node` (and the executable, which runs with no flags) accepts the cache; checkCodeCache
 * proves it on each build.
 *
 * Warm-up: the cache holds the functions that have run, not only the top-level code, so the
 * maker runs the bundle as `modgate serve --data-dir <a folder that does not exist>`. Serve loads
 * every module it runs (the daemon, the routes, the mod link, zod, pino) and then stops at the
 * data dir, before any socket or timer exists, so the same functions run on every build.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Fixed seeds and one thread: the cache bytes do not depend on the process that wrote them. */
export const CODE_CACHE_FLAGS = ['--predictable', '--random-seed=1'];

/** What the warm-up's serve must say: it stopped at the data dir, having loaded everything. */
const WARM_UP_STOP = /is not an initialised modgate data dir/;

/**
 * Runs the wrapped CLI bundle as the executable's main script does (cli/sea-main.ts),
 * with a `require` that, like the executable's, knows built-in modules only: the optional native
 * addons then fail here as they do in the executable, whatever node_modules holds.
 */
const MAKER = `'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { isBuiltin } = require('node:module');
const { Script } = require('node:vm');
const [source, out, filename, ...argv] = process.argv.slice(2);
const script = new Script(readFileSync(source, 'utf8'), { filename });
const builtinRequire = (id) => {
  if (isBuiltin(id)) return require(id);
  throw Object.assign(new Error("Cannot find module '" + id + "'"), { code: 'MODULE_NOT_FOUND' });
};
process.argv = [process.argv[0], __filename, ...argv];
process.once('beforeExit', () => writeFileSync(out, script.createCachedData()));
const cli = { exports: {} };
script.runInThisContext()(cli.exports, builtinRequire, cli, __filename, __dirname);
`;

/** Compiles then verifies: exits 0 only if V8 took the cache as it is. */
const CHECKER = `'use strict';
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const [source, cache, filename] = process.argv.slice(2);
const script = new Script(readFileSync(source, 'utf8'), { filename, cachedData: readFileSync(cache) });
process.exitCode = script.cachedDataRejected === false ? 0 : 1;
`;

export interface CodeCacheFiles {
  /** The wrapped CLI bundle, exactly the bytes of the executable's asset. */
  source: string;
  /** Where the cache goes. */
  cache: string;
  /** The script name the executable compiles the bundle under. */
  filename: string;
  /** A scratch folder for the maker and checker scripts. */
  work: string;
}

/**
 * The embedded `node` as a command line: the binary itself, or an emulator and the binary when
 * it is built for another architecture (scripts/emulator.ts).
 */
export type NodeCommand = readonly [string, ...string[]];

/** Writes `files.cache` with the embedded `node`; the same source gives the same bytes. */
export async function makeCodeCache(node: NodeCommand, files: CodeCacheFiles): Promise<void> {
  const maker = join(files.work, 'code-cache-maker.cjs');
  await writeFile(maker, MAKER);
  const serve = ['serve', '--data-dir', join(files.work, 'no-data-dir'), '--log-format', 'json'];
  const args = [...CODE_CACHE_FLAGS, maker, files.source, files.cache, files.filename, ...serve];
  // An empty environment: nothing of the build machine's (MODGATE_*, a terminal) may change
  // which code runs, or the cache would differ from one machine to the next.
  const result = await run(node[0], [...node.slice(1), ...args], { cwd: files.work, env: {} }).then(
    () => ({ stderr: 'serve started' }),
    (error: { stderr?: string }) => ({ stderr: error.stderr ?? String(error) }),
  );
  if (!WARM_UP_STOP.test(result.stderr)) {
    throw new Error(`the code cache warm-up did not stop at the data dir as expected:\n${result.stderr}`);
  }
  await checkCodeCache(node, files);
}

/** Fails unless a `node` started with no flags, as the executable is, accepts the cache. */
export async function checkCodeCache(node: NodeCommand, files: CodeCacheFiles): Promise<void> {
  const checker = join(files.work, 'code-cache-check.cjs');
  await writeFile(checker, CHECKER);
  const args = [...node.slice(1), checker, files.source, files.cache, files.filename];
  await run(node[0], args, { cwd: files.work, env: {} }).catch((error: unknown) => {
    throw new Error('V8 rejected the code cache it was just given (see scripts/code-cache.ts)', {
      cause: error,
    });
  });
}
