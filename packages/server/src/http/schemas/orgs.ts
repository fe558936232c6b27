import { z } from '@hono/zod-openapi';
import { ORG_STATES } from '../../domain/orgs/queries.js';
import { Details } from './common.js';

export const Org = z
  .object({
    id: z.string(),
    details: Details,
    state: z.enum(ORG_STATES),
    name: z.string(),
    primaryDomain: z.string(),
  })
  .openapi('Org');

export const OrgResponse = z.object({ org: Org });
