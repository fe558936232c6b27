/** The organisation itself: the first fields of its entry (import/org.ts reads them back). */
import type { ExportedOrg } from './section.js';

export const orgFields = (org: ExportedOrg) => `"orgId":${JSON.stringify(org.id)},"org":${JSON.stringify({ name: org.name })},"orgState":${JSON.stringify(org.state)}`;
