import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/duration-order.ts';

/**
 * The files that need a module registry of their own: those that `vi.mock` a module every other
 * file shares (node:crypto; a mock outlives its file in a worker that keeps its modules, and does
 * not reach a module that worker loaded already), and those that prove what importing a module
 * does (no schema built until first use), which needs a first import.
 */
/**
 * The distribution tests (test/e2e/dist/): they build the arm64 binary under qemu, the .deb and
 * .rpm of both architectures and a signed release, and install the .deb on the machine with dpkg
 * as root. Minutes of building, and a change to the machine a newcomer's `npm test` must not
 * make: `npm run test:dist` runs them (MODGATE_DIST_TESTS=1 adds their project), and .ci/run runs both (docs/architecture.md, "Where tests
 * live").
 */
export const DIST_TESTS = 'test/e2e/dist/**/*.test.ts';

const FRESH_MODULE_FILES = [
  'test/daemon/store/api-keys.test.ts',
  'test/daemon/store/random-text.test.ts',
  'test/daemon/admin/define-admin-route.test.ts',
  'test/daemon/routes/schema-laziness.test.ts',
  'test/protocol/ops/laziness.test.ts',
];

/**
 * Around every file of every project: what a file left running fails it, and its leftover data
 * dirs are removed. Each project names it (a root `setupFiles` would be added to a project's own,
 * running it twice).
 */
const CLEANUP = 'test/support/cleanup.ts';

export default defineConfig({
  test: {
    // Safety nets, not measurements: far above what the slowest test takes on a loaded 2-core
    // machine, so load makes a run slower, never red (docs/architecture.md, "Where tests live").
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for the event like harness `eventually()` does, with its limit (30 s), not
    // vitest's default second, which a loaded machine's browser page can take to render a table.
    expect: { poll: { timeout: 30_000 } },
    // One worker more than the cores (vitest's default leaves one core free): most of a file's
    // time is spent waiting on the processes the e2e files start; on 2 cores a quiet fresh clone
    // took 431 s with one worker and 295 s with two (240 files), and 414 s with two and 380 s
    // with three (277 files, the CPU busy 82 % and 85 %) (docs/architecture.md, "Where tests live").
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // The longest files first, from test/durations.json until vitest has measured this machine's
    // own (test/support/duration-order.ts): a fresh clone otherwise starts the larger files first.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...FRESH_MODULE_FILES, DIST_TESTS],
          // A worker keeps the modules it has loaded from file to file: on 2 cores, loading the
          // daemon's module graph again for each of 230 files was most of a run's time.
          isolate: false,
          // The modgate processes the e2e files start run one bundle of the CLI, built once, not
          // bin/modgate.js through tsx; the files that run the single executable share one build
          // in the run's binary folder (docs/architecture.md, "Where tests live").
          globalSetup: ['test/support/cli-bundle-setup.ts', 'test/support/binary-folder-setup.ts'],
          // Here alone: it loads harness/processes.ts and through it the daemon's modules, which
          // the isolated files' vi.mock(node:crypto) must reach before anything loads them.
          setupFiles: [CLEANUP, 'test/support/modgate-program.ts'],
        },
      },
      { extends: true, test: { name: 'isolated', include: FRESH_MODULE_FILES, setupFiles: [CLEANUP] } },
      // Only for `npm run test:dist`, so that every other vitest run leaves them out.
      ...(process.env['MODGATE_DIST_TESTS'] === '1'
        ? [
            {
              extends: true as const,
              test: { name: 'dist', include: [DIST_TESTS], fileParallelism: false, setupFiles: [CLEANUP] },
            },
          ]
        : []),
    ],
    coverage: {
      provider: 'v8',
      include: ['{daemon,protocol,cli,mod-sim,mod-test,client,bridge,panel}/**/*.{ts,tsx}'],
      // The include also matches test/daemon/… and the like: the tests' own helpers are no source.
      exclude: ['test/**'],
      reporter: ['text-summary', 'json-summary', 'html'],
      // The figures are worth reading even when a test failed: the run says it failed anyway.
      reportOnFailure: true,
      // A little under what the whole suite measured (docs/architecture.md, "Coverage").
      thresholds: { lines: 87, branches: 79, functions: 85, statements: 85 },
    },
  },
});
