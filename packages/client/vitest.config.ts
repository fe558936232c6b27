import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The server's PostgreSQL for the tests against a real server on both stores (describeEachStore).
    globalSetup: ['../server/test/support/global-temp-root.ts', '../server/test/support/global-postgres.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
