import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    // Safety nets, not measurements: far above what the slowest test takes on a loaded 2-core
    // machine, so load makes a run slower, never red (docs/architecture.md, "Where tests live").
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
