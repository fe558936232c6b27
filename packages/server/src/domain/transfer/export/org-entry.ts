/**
 * One organisation's entry of the document: the organisation, then each kind of resource by its
 * own module beside this file (as import/ has one per kind), in the document's order. The order is
 * the export's alone (the import's, import/org-entry.ts, follows references instead) and it is what
 * an export has always written: documents stay byte for byte the same.
 */

import { orgHistoryJson } from '../history.js';
import { apps } from './apps.js';
import { credentials } from './credentials.js';
import { domains } from './domains.js';
import { projectGrants, userGrants } from './grants.js';
import { idps } from './idps.js';
import { keys } from './keys.js';
import { members } from './members.js';
import { orgFields } from './org.js';
import { policies } from './policies.js';
import { projectRoles, projects } from './projects.js';
import { CHUNK_CHARS, type OrgExport, type Section } from './section.js';
import { loginTexts, messageTexts } from './texts.js';
import { userLinks, userMetadata, users } from './users.js';

const SECTIONS: readonly Section[] = [
  users,
  domains,
  policies,
  userMetadata,
  projects,
  projectRoles,
  apps,
  // Only with `withKeys`.
  keys,
  credentials,
  projectGrants,
  userGrants,
  members,
  idps,
  userLinks,
  loginTexts,
  messageTexts,
];

/** The entry as JSON text, `,` before it unless it is the first. */
export async function* exportOrgEntry(o: OrgExport, first: boolean): AsyncGenerator<string> {
  yield `${first ? '' : ','}{${orgFields(o.org)}`;
  // The organisation's own events (`withHistory`: history.ts).
  if (o.req.withHistory) yield* orgHistoryJson(o.read, o.org.id, CHUNK_CHARS);
  for (const section of SECTIONS) yield* section(o);
  yield '}';
}
