/**
 * Scenario files, one per resource: each drives its operations through the typed client and
 * must produce every status its operations document (the ledger checks). Add yours here.
 */
import type { Harness } from '../support/harness.js';
import { anyOperationScenarios } from './any-operation.js';
import { appScenarios } from './apps.js';
import { authFactorScenarios } from './auth-factors.js';
import { eventScenarios } from './events.js';
import { idpLinkScenarios } from './idp-links.js';
import { idpScenarios } from './idps.js';
import { importJobScenarios } from './import-jobs.js';
import { machineKeyScenarios } from './machine-keys.js';
import { machineSecretScenarios } from './machine-secrets.js';
import { memberScenarios } from './members.js';
import { messageTextPreviewScenarios } from './message-text-previews.js';
import { myAuthFactorScenarios } from './my-auth-factors.js';
import { notificationScenarios } from './notifications.js';
import { orgAdminScenarios } from './org-admin.js';
import { orgDomainScenarios } from './org-domains.js';
import { orgScenarios } from './orgs.js';
import { pathParameterScenarios } from './path-parameters.js';
import { lockoutScenarios, morePolicyScenarios, policyScenarios } from './policies.js';
import { projectGrantScenarios } from './project-grants.js';
import { projectScenarios } from './projects.js';
import { removalScenarios } from './removal.js';
import { systemScenarios } from './system.js';
import { transferScenarios } from './transfer.js';
import { userChangeScenarios } from './user-changes.js';
import { userGrantScenarios } from './user-grants.js';
import { userMetadataScenarios } from './user-metadata.js';
import { userScenarios } from './users.js';
import { loginTextScenarios, messageTextScenarios, verifyEmailTextScenarios } from './verify-email-text.js';

export type ScenarioGroup = (h: () => Harness) => void;

export const scenarioGroups: ScenarioGroup[] = [
  systemScenarios,
  verifyEmailTextScenarios,
  messageTextScenarios,
  messageTextPreviewScenarios,
  loginTextScenarios,
  orgScenarios,
  orgAdminScenarios,
  orgDomainScenarios,
  userScenarios,
  userChangeScenarios,
  memberScenarios,
  idpScenarios,
  idpLinkScenarios,
  authFactorScenarios,
  myAuthFactorScenarios,
  notificationScenarios,
  userMetadataScenarios,
  policyScenarios,
  lockoutScenarios,
  morePolicyScenarios,
  projectScenarios,
  projectGrantScenarios,
  appScenarios,
  machineSecretScenarios,
  machineKeyScenarios,
  userGrantScenarios,
  eventScenarios,
  transferScenarios,
  importJobScenarios,
  pathParameterScenarios,
  anyOperationScenarios,
  removalScenarios,
];
