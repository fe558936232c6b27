#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (a dependency of the workspace), without a build step.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/cli/identity-transfer.ts');
run();
