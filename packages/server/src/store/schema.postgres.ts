// The PostgreSQL instantiation of the tables; drizzle-kit reads this file to generate migrations.
import { pgColumns } from './columns.js';
import { defineTables } from './schema.js';

export const { events, aggregateSequences, instances, orgs, users, personalAccessTokens, members, messageTexts, projects, projectRoles, userGrants, idps,
  oidcPayloads, oidcKeys, oidcApps, appKeys, machineKeys, machineSecrets, passwordFailures, otpChecks, codeCheckFailures, selfRegistrations,
  userOtpSecrets, loginTexts, idpUserLinks, smtpProviders, outbox, importJobs, importJobResults, userCodes, userMetadata, policies, orgDomains, projectGrants,
  userOtpPending, mfaInitSkips, orgRemovals } =
  defineTables(pgColumns);
