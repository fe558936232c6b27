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
  // Browser steps of the authorization server (authorize, login submit, registration, logout confirm)
  // succeed with a 303 redirect by design (OAuth 2.0 / OIDC), so they have no 2XX answer to document.
  const redirectOnly = (p: { ruleId: string; location?: { source?: { absoluteRef?: string } }[] }) =>
    p.ruleId === 'operation-2xx-response' && /\/openapi\/paths\/(oauth|login-pages|login-second-factor)\.yaml$/.test(p.location?.[0]?.source?.absoluteRef ?? '');
  const problems = (await lint({ ref: SPEC_ENTRY, config })).filter((p) => !redirectOnly(p as never));
  const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
  const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
  expect(errors).toEqual([]);
  expect(warnings).toEqual([]);
});
