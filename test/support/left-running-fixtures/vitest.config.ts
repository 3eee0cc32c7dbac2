/**
 * Runs the fixtures of test/support/left-running.test.ts with the suite's own setup file, one
 * worker, workers kept from file to file as the shared project keeps them.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/support/left-running-fixtures/*.fixture.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    isolate: false,
    maxWorkers: 1,
    // A leak fails within a second here, not after the suite's ten.
    env: { MODGATE_TEST_LEAVE_WITHIN_MS: '1000' },
  },
});
