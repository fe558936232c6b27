// Part of `npm run build`: the compiled server (dist/) applies the same SQL migrations as the
// sources, so they are copied beside the compiled store (tsc copies only what is imported).
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/store/migrations/', import.meta.url);
const to = new URL('../dist/store/migrations/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
