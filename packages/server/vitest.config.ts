import { defineConfig } from 'vitest/config';

/**
 * Files that need a process of their own: they read or change what a process has once (the global
 * `Request` as it was before @hono/node-server's listener replaced it, V8's heap settings while any
 * import of the process holds its spool, the heap and CPU time they measure).
 */
const ISOLATED = [
  'test/rpc/in-process-request.test.ts',
  'test/transfer/import-heap-growth.test.ts',
  'test/transfer/import-id-shapes.test.ts',
  'test/transfer/import-streaming.test.ts',
  'test/transfer/import-loop-turns.test.ts',
  'test/project/**/*.test.ts',
];

export default defineConfig({
  test: {
    // The temporary root first: its TMPDIR reaches the others and the workers, its teardown runs last.
    globalSetup: ['./test/support/global-temp-root.ts', './test/support/global-postgres.ts'],
    setupFiles: ['./test/support/remove-temp-dirs.ts'],
    // Two files at a time, also on a 2-core machine (vitest's default there is one: cores − 1). Most
    // files spend their time waiting (on a child process, Chromium, PostgreSQL, a socket, a timer),
    // so a second file fills the waits: the suite takes about half as long. Tests that measure
    // latency compare within their own run, and their bounds hold with a neighbour.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // The rest share their worker's modules (`isolate: false`): each file imported the whole
        // service again in a fresh process, 185 s of the suite's 685 (CI, 2026-11-29); shared, 14 s.
        // Every file builds its own service and store (test/support/instance.ts) and closes them.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
