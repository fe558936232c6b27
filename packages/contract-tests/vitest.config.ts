import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['../server/test/support/global-temp-root.ts', '../server/test/support/global-postgres.ts'],
    setupFiles: ['../server/test/support/remove-temp-dirs.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
