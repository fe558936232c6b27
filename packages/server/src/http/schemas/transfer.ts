/**
 * Export/import shapes (openapi/components/schemas/{ExportDataRequest,ImportDataRequest,…}.yaml).
 * The request bodies list both spellings ZITADEL accepts (`org_ids` and `orgIds`); the route
 * checks only the outline, and domain/transfer normalises the names and validates everything,
 * so a problem deep in a document is reported with its path in the document.
 */
import { z } from '@hono/zod-openapi';

export const GcsLocation = z
  .object({
    bucket: z.string().optional(),
    path: z.string().optional(),
    serviceaccountJson: z.string().optional(),
    serviceaccount_json: z.string().optional(),
  })
  .openapi('GcsLocation');

/** The document `{orgs: [DataOrg…]}`; the fields of DataOrg are checked by the domain. */
export const DataOrgs = z
  .object({ orgs: z.array(z.record(z.string(), z.unknown())).optional() })
  .catchall(z.unknown())
  .openapi('DataOrgs');

export const ExportDataRequest = z
  .object({
    orgIds: z.array(z.string()).optional(),
    org_ids: z.array(z.string()).optional(),
    excludedOrgIds: z.array(z.string()).optional(),
    excluded_org_ids: z.array(z.string()).optional(),
    withPasswords: z.boolean().optional(),
    with_passwords: z.boolean().optional(),
    withOtp: z.boolean().optional(),
    with_otp: z.boolean().optional(),
    responseOutput: z.boolean().optional(),
    response_output: z.boolean().optional(),
    gcsOutput: GcsLocation.optional(),
    gcs_output: GcsLocation.optional(),
    timeout: z.string().optional(),
  })
  .openapi('ExportDataRequest');

export const ExportDataResponse = z
  .object({
    gcsOutput: z.object({ bucket: z.string(), path: z.string(), bytes: z.string() }).optional(),
    orgs: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .openapi('ExportDataResponse');

const V1Data = z.union([z.string(), DataOrgs]);

export const ImportDataRequest = z
  .object({
    timeout: z.string().optional(),
    notifyUsers: z.boolean().optional(),
    dataOrgs: DataOrgs.optional(),
    data_orgs: DataOrgs.optional(),
    dataOrgsv1: V1Data.optional(),
    data_orgsv1: V1Data.optional(),
    dataOrgsGcs: GcsLocation.optional(),
    data_orgs_gcs: GcsLocation.optional(),
    dataOrgsv1Gcs: GcsLocation.optional(),
    data_orgsv1_gcs: GcsLocation.optional(),
  })
  .openapi('ImportDataRequest');

const Pair = (a: string, b: string) => z.object({ [a]: z.string(), [b]: z.string() } as Record<string, z.ZodString>);

export const ImportDataResponse = z
  .object({
    errors: z.array(z.object({ type: z.string(), id: z.string(), message: z.string() })).optional(),
    warnings: z.array(z.object({ type: z.string(), id: z.string(), message: z.string() })).optional(),
    success: z.object({
      orgs: z
        .array(
          z.object({
            orgId: z.string(),
            humanUserIds: z.array(z.string()).optional(),
            machineUserIds: z.array(z.string()).optional(),
            projectIds: z.array(z.string()).optional(),
            projectRoles: z.array(z.string()).optional(),
            oidcAppIds: z.array(z.string()).optional(),
            apiAppIds: z.array(z.string()).optional(),
            userGrants: z.array(Pair('projectId', 'userId')).optional(),
            projectGrants: z.array(z.object({ grantId: z.string(), projectId: z.string(), orgId: z.string() })).optional(),
            projectGrantMembers: z.array(z.object({ projectId: z.string(), grantId: z.string(), userId: z.string() })).optional(),
            orgMembers: z.array(z.string()).optional(),
            projectMembers: z.array(Pair('projectId', 'userId')).optional(),
            oidcIpds: z.array(z.string()).optional(),
            jwtIdps: z.array(z.string()).optional(),
            userLinks: z.array(z.object({ userId: z.string(), externalUserId: z.string(), displayName: z.string(), idpId: z.string() })).optional(),
            userMetadata: z.array(Pair('userId', 'key')).optional(),
            loginTexts: z.array(z.string()).optional(),
            messageTexts: z.array(z.string()).optional(),
            domains: z.array(z.string()).optional(),
          }),
        )
        .optional(),
    }),
  })
  .openapi('ImportDataResponse');
