import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/global-postgres.ts'],
    // Two files at a time, also on a 2-core machine (vitest's default there is one: cores − 1). Most
    // files spend their time waiting (on a child process, Chromium, PostgreSQL, a socket, a timer),
    // so a second file fills the waits: the suite takes about half as long. Tests that measure
    // latency compare within their own run, and their bounds hold with a neighbour.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
