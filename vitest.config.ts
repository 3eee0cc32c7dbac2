import { defineConfig } from 'vitest/config';

/**
 * The files that `vi.mock` a module every other file shares (node:crypto). A mock outlives its
 * file in a worker that keeps its modules, and does not reach a module that worker loaded
 * already, so these run with a module registry of their own.
 */
const MOCKING_FILES = ['test/daemon/store/api-keys.test.ts', 'test/daemon/store/random-text.test.ts'];

export default defineConfig({
  test: {
    setupFiles: ['test/support/cleanup.ts'],
    // Safety nets, not measurements: far above what the slowest test takes on a loaded 2-core
    // machine, so load makes a run slower, never red (docs/architecture.md, "Where tests live").
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: MOCKING_FILES,
          // One worker keeps the modules it has loaded from file to file: on 2 cores, loading
          // the daemon's module graph again for each of 230 files was most of a run's time.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING_FILES } },
    ],
    coverage: {
      provider: 'v8',
      include: ['{daemon,protocol,cli,mod-sim,mod-test,client,bridge,panel}/**/*.{ts,tsx}'],
      reporter: ['text-summary', 'json-summary', 'html'],
    },
  },
});
