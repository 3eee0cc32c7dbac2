/**
 * The x64 single executable for the files that run it (test/e2e/binary.test.ts,
 * test/scripts/check-dockerfile.test.ts): $MODGATE_BINARY when set (.ci/run builds dist/modgate
 * first, and the tests check that artifact), else one built from the current source once per run,
 * never a stale dist/ (docs/architecture.md, "Where tests live"). A build is 15–20 s of CPU on 2
 * cores, and each of those files used to make its own.
 *
 * The first file to ask builds it into the run's folder (binary-folder-setup.ts); a file that asks
 * while it builds, in the other worker (a separate process), waits for it. The lock is a file made
 * with the exclusive flag (`wx`) that holds the builder's pid, and a marker file says the build
 * finished: a few lines, where a lock library (proper-lockfile) would add a dependency for the
 * same. A build that fails removes the lock, so the next file to ask builds again and reports its
 * own error; a builder whose process is gone fails the waiting file at once rather than at its
 * hook's limit.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import { eventually } from '../../harness/stack.ts';
import { buildBinary } from '../../scripts/build.ts';

/** Far above a build's time on a loaded 2-core machine: a safety net, not a measurement. */
const BUILD_MS = 280_000;

/** In a worker that keeps its modules (`isolate: false`), the next file finds the path here. */
let built: Promise<string> | undefined;

/** The binary's path: $MODGATE_BINARY's, or this run's build, made on the first call. */
export function sharedBinary(): Promise<string> {
  const given = process.env['MODGATE_BINARY'];
  if (given) return Promise.resolve(resolve(given));
  const folder = inject('binaryFolder');
  if (folder === undefined) throw new Error('no binaryFolder: run this file in the `shared` project');
  built ??= buildOnce(folder).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

async function buildOnce(folder: string): Promise<string> {
  const binary = join(folder, 'modgate');
  const done = join(folder, 'built');
  const lock = join(folder, 'build.lock');
  for (;;) {
    if (await exists(done)) return binary;
    if (await claim(lock)) {
      try {
        await buildBinary({ outDir: folder });
        await writeFile(done, '');
        return binary;
      } finally {
        await rm(lock, { force: true });
      }
    }
    // Another worker builds: wait until it is done, or gave up (then build here).
    await eventually(async () => (await exists(done)) || !(await heldByLiveProcess(lock)), BUILD_MS);
  }
}

/** Takes the lock if no one holds it. */
async function claim(lock: string): Promise<boolean> {
  try {
    await writeFile(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** False once the lock is released; throws if its holder's process ended without releasing it. */
async function heldByLiveProcess(lock: string): Promise<boolean> {
  const text = await readFile(lock, 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  // Empty: its holder has made it and not written its pid yet.
  if (text === '') return true;
  try {
    process.kill(Number(text), 0);
    return true;
  } catch {
    throw new Error(`the binary's build in process ${text} ended without finishing (${lock})`);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
