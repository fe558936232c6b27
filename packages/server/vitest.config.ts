import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/global-postgres.ts'],
    // Each file builds its own instances; files run in parallel on the 2 cores.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
