import { createConfig, lint } from '@redocly/openapi-core';
import { expect, it } from 'vitest';
import { SPEC_ENTRY } from './support/spec.js';

it('the hand-written spec lints clean (redocly recommended rules)', async () => {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      'security-defined': 'error',
      // The probes and the document itself cannot fail on the caller's account.
      'operation-4xx-response': 'off',
    },
  } as never);
  const problems = await lint({ ref: SPEC_ENTRY, config });
  const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
  const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
  expect(errors).toEqual([]);
  expect(warnings).toEqual([]);
});
