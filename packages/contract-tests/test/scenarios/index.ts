/**
 * Scenario files, one per resource: each drives its operations through the typed client and
 * must produce every status its operations document (the ledger checks). Add yours here.
 */
import type { Harness } from '../support/harness.js';
import { orgScenarios } from './orgs.js';
import { systemScenarios } from './system.js';
import { verifyEmailTextScenarios } from './verify-email-text.js';

export type ScenarioGroup = (h: () => Harness) => void;

export const scenarioGroups: ScenarioGroup[] = [
  systemScenarios,
  verifyEmailTextScenarios,
  orgScenarios,
];
