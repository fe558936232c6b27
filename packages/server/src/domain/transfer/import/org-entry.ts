/**
 * One organisation of an import, inside one transaction (all of it or none of it): each kind of
 * resource by its own module under import/, in the order their references need (users before
 * their keys and links, projects before apps and grants). A resource that already exists is
 * treated by the request's conflict policy (import/report.ts: reported and skipped, skipped, or
 * overwritten with one event per resource changed), so a second run of the same document changes
 * nothing. Imported resources get no events of their own (description §4.5 rule 3): their state
 * rows start at sequence 0.
 */
import { SlicePacer } from '../../../runtime/paced-slices.js';
import type { Repositories } from '../../../store/store.js';
import type { RequestContext } from '../../context.js';
import type { DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AnswerList } from '../answer-lists.js';
import type { DataOrg } from '../document.js';
import { USER_BATCH } from '../spooled-document.js';
import { importApps } from './apps.js';
import { importMachineSecrets, importPersonalAccessTokens } from './credentials.js';
import { importDomains } from './domains.js';
import { importIdps } from './idps.js';
import { importAppKeys, importMachineKeys } from './keys.js';
import { importOrganisation } from './org.js';
import { importPolicies } from './policies.js';
import { importProjectRoles, importProjects } from './projects.js';
import { importReferences, type OrgReferences, splitReferences } from './references.js';
import { type ConflictPolicy, type ImportError, type ImportSuccessOrg, OrgImport, type OutcomeSink } from './report.js';
import { importTexts } from './texts.js';
import { importUserLinks, importUserMetadata, importUsers } from './users.js';

export interface OrgImportContext {
  /** Whose default policies apply (bare login names). */
  instanceId: string;
  /** The organisation's entry; its users may come instead from `userBatches`. */
  org: DataOrg;
  /**
   * The organisation's users a batch at a time (a document read as a stream: spooled-document.ts),
   * so that memory holds one batch, not all of them; each call starts afresh.
   */
  userBatches?: () => AsyncIterable<Pick<DataOrg, 'humanUsers' | 'machineUsers'>>;
  /** Precomputed argon2 hashes of plain `password`s, by user id (hashing happens outside the transaction). */
  plainHashes: Map<string, string>;
  /** Seals a TOTP secret for the store (domain/users/otp-secret.ts). */
  sealOtp: (base32: string) => string;
  /** Opens a stored TOTP secret (undefined: sealed under a key no longer held). */
  openOtp?: (stored: string) => string | undefined;
  /** Seals an OIDC identity provider's client secret for the store (domain/idps/idp.ts). */
  sealIdpSecret: (clientSecret: string) => string;
  /** Whether a sealed identity provider's client secret is this one. */
  isIdpSecret: (sealed: string, clientSecret: string) => boolean;
  /** What becomes of a resource that exists already (the request's `conflictPolicy`). */
  policy: ConflictPolicy;
  /** Receives each resource's outcome (this run's: reset with `errors` when the transaction runs again). */
  outcomes: OutcomeSink;
  /** Who imports: the creator of the events an overwrite appends, and whose authority over existing users counts (domain/users/guard.ts). */
  importer: RequestContext;
  /** Expired deadline (checked between steps; the transaction then rolls back). */
  signal: { readonly aborted: boolean };
  onTimeout: () => DomainError;
  errors: AnswerList<ImportError>;
  /**
   * Users of organisations imported later in this import (order.ts): grants and
   * memberships naming them are not imported with the organisation but handed back in
   * `deferred`, to be imported by importReferences once those users exist.
   */
  importedLater?: (userId: string) => boolean;
  deferred?: OrgReferences;
  missingUsers: Map<string, number>;
  /** Queue the verification / init mail for each imported human that needs one (the request's `notifyUsers`). */
  notifyUsers?: boolean;
  /** After each batch of users: how many of the organisation's users this run of its transaction has taken so far. */
  onUsersDone?: (usersDone: number) => void;
}

export async function importOrgEntry(tx: Repositories, c: OrgImportContext): Promise<ImportSuccessOrg | undefined> {
  const { org } = c;
  const check = () => {
    if (c.signal.aborted) throw c.onTimeout();
  };
  const orgId = org.orgId ?? newId();
  const run = new OrgImport(orgId, new Date(), c.errors, { orgId }, check, c.missingUsers, c.policy, c.outcomes, c.importer);
  // The users whose authority is asked about (mayChangeUser): those the metadata, links and keys below name.
  run.watchUsers([...(org.userMetadata ?? []).map((m) => m.id), ...(org.userLinks ?? []).map((l) => l.userId), ...(org.machineKeys ?? []).map((k) => k.userId)]);

  if (!(await importOrganisation(tx, org, run))) return undefined;
  await importDomains(tx, org.domains ?? [], run);
  await importPolicies(tx, org, run);
  check();
  const userOptions = { instanceId: c.instanceId, plainHashes: c.plainHashes, sealOtp: c.sealOtp, openOtp: c.openOtp, notifyUsers: c.notifyUsers };
  await importUsers(tx, org, run, userOptions);
  check();
  // Batch by batch, in this same transaction: a later batch sees the users of the earlier ones.
  // Each batch in slices of bounded work, the event loop turning between two (paced-slices.ts):
  // on SQLite the writes hold the thread, and a whole batch held it 18–120 ms.
  const pacer = new SlicePacer(USER_BATCH);
  let usersDone = 0;
  for await (const batch of c.userBatches?.() ?? []) {
    await pacer.each(batch.humanUsers ?? [], (humanUsers) => importUsers(tx, { ...org, humanUsers, machineUsers: [] }, run, userOptions));
    await pacer.each(batch.machineUsers ?? [], (machineUsers) => importUsers(tx, { ...org, humanUsers: [], machineUsers }, run, userOptions));
    check();
    c.onUsersDone?.((usersDone += (batch.humanUsers?.length ?? 0) + (batch.machineUsers?.length ?? 0)));
  }
  const projectNames = await importProjects(tx, org.projects ?? [], run);
  // Projects of this organisation (imported now or before) are the only ones roles, apps, grants and members may name.
  await importProjectRoles(tx, org.projectRoles ?? [], run);
  await importApps(tx, { oidcApps: org.oidcApps ?? [], apiApps: org.apiApps ?? [], appKeys: org.appKeys ?? [], projectNames }, run);
  check();
  await importIdps(tx, { jwtIdps: org.jwtIdps ?? [], oidcIdps: org.oidcIdps ?? [], sealIdpSecret: c.sealIdpSecret, isIdpSecret: c.isIdpSecret }, run);
  // Lists as long as the users (a value per user, a link per user) in slices too.
  const listPacer = new SlicePacer(USER_BATCH);
  await listPacer.each(org.userMetadata ?? [], (userMetadata) => importUserMetadata(tx, userMetadata, run));
  check();
  // Public keys of this organisation's machine users and PRIVATE_KEY_JWT applications; the hashes of its machine users' tokens and secrets.
  await importMachineKeys(tx, org.machineKeys ?? [], run);
  await importAppKeys(tx, org.appKeys ?? [], run);
  await importPersonalAccessTokens(tx, org.identityServicePersonalAccessTokens ?? [], run);
  await importMachineSecrets(tx, org.identityServiceMachineSecrets ?? [], run);
  await listPacer.each(org.userLinks ?? [], (userLinks) => importUserLinks(tx, userLinks, run));

  // User grants and memberships: now, or after the organisations whose users they name.
  const { now, later } = splitReferences(org, c.importedLater);
  await importReferences(tx, now, run);
  if (later) c.deferred = later;

  await importTexts(tx, org, run);
  check();
  return run.ok;
}
