/**
 * vitest runs a global set-up once per project in one process: the root config's, and again for each
 * of its `projects` that extends it (the server has two, `shared` and `isolated`), so a set-up listed
 * there ran three times (three PostgreSQL servers for one run). What such a set-up starts is started
 * by the first of them, kept on the process, and stopped by the last teardown, whichever order
 * vitest runs them in.
 */
interface Shared<T> {
  value: T;
  users: number;
  stop: () => Promise<void> | void;
}

export async function sharedAcrossProjects<T>(key: string, start: () => Promise<{ value: T; stop: () => Promise<void> | void }>): Promise<{ value: T; release: () => Promise<void> }> {
  const slot = Symbol.for(`identity-service.test.${key}`);
  const registry = globalThis as unknown as Record<symbol, Shared<T> | undefined>;
  let shared = registry[slot];
  if (!shared) {
    const started = await start();
    shared = { ...started, users: 0 };
    registry[slot] = shared;
  }
  shared.users++;
  const held = shared;
  return {
    value: held.value,
    release: async () => {
      if (--held.users > 0) return;
      registry[slot] = undefined;
      await held.stop();
    },
  };
}
