import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 15_000,
    hookTimeout: 15_000,
  },
});
