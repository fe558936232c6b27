/**
 * ImportData (reference §5, description §4.5), done better than ZITADEL (reference §5.6, §9):
 * the whole document is validated before anything is written; each organisation is imported
 * in one transaction; existing resources are reported, not duplicated; a timeout rolls the
 * organisation in progress back; a missing timeout takes DEFAULT_TRANSFER_TIMEOUT_MS; the
 * import writes exactly one audit event naming the caller and the organisations.
 */
import { processSecretBox, type SecretBox } from '../../secrets/secret-box.js';
import { sealOtpSecret } from '../users/otp-secret.js';
import { OIDC_CLIENT_SECRET_PURPOSE } from '../idps/idp.js';
import { hashPassword } from '../../auth/passwords.js';
import type { Repositories, Store } from '../../store/store.js';
import { stat, readFile } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { gcsError, readGcsObject, type GcsOptions } from '../../storage/gcs.js';
import { requirePermission, type RequestContext } from '../context.js';
import { DomainError, GrpcCode, invalidArgument } from '../errors.js';
import type { DataOrg } from './document.js';
import { importOrder, usersImportedLater } from './import-order.js';
import { importOrgInBatches } from './import-batches.js';
import { importReferences, msg, orgImportLocks, timeoutError, type ImportError, type ImportSuccessOrg, type OrgImportContext, type OrgReferences } from './import-org.js';
import type { OnTransferProgress } from './progress.js';
import { parseImportRequest } from './request.js';
import { parseDataOrgsV1 } from './v1.js';
import { parseDataOrgs } from './validate.js';
import { toLowerCamel } from './keys.js';
import { spoolTo, type Spool } from './spool.js';
import { inMemorySources, SPOOLED_DOCUMENT, spoolDocument, USER_BATCH, type OrgSource } from './spooled-document.js';

export interface ImportDeps {
  gcs?: GcsOptions;
  /** Seals TOTP secrets (`otpCode`) at rest (default: the process's operator key). */
  secrets?: SecretBox;
  /** Largest document read from Cloud Storage in the current format (default: none, the disk is the bound). */
  maxBytes?: number;
  onProgress?: OnTransferProgress;
  /** Stops the import as its timeout does (an import job's cancel): the organisation in progress rolls back. */
  signal?: AbortSignal;
  /** The document is being read and validated; then validated, with what it holds (import jobs show both). */
  onPhase?: (phase: 'validating' | 'importing', totals?: { orgs: number; users: number }) => void;
  /** Runs in each imported organisation's transaction (an import job records it there, so its list is exact). */
  onOrgCommit?: (tx: Repositories, orgId: string) => Promise<void>;
}

/**
 * The request, spooled to a private file by whoever received it (admin-transfer.ts for ImportData,
 * a job for its document), and the spool the import may write its own files to (spool.ts). The
 * caller removes the spool afterwards.
 */
export interface ImportInput {
  requestFile: string;
  spool: Spool;
}

export interface ImportDataResponse {
  errors?: ImportError[];
  success: { orgs?: ImportSuccessOrg[] };
}

export const IMPORT_EVENT = 'instance.data.imported';
/** Written per organisation, in its own transaction (see orgImportEvent). */
export const ORG_IMPORT_EVENT = 'org.data.imported';

/**
 * The largest version-1 document (`dataOrgsv1`, `dataOrgsv1Gcs`): read whole, not as a stream (it
 * may be a JSON string inside the request), so it keeps the former limit of every import.
 */
export const MAX_V1_DOCUMENT_BYTES = 64 * 1024 * 1024;

const v1TooLarge = () =>
  new DomainError(GrpcCode.ResourceExhausted, 'IMPORT-v1b1g', `a version-1 document (dataOrgsv1) is read whole and may be at most ${MAX_V1_DOCUMENT_BYTES} bytes; use dataOrgs, which has no such limit`);

/**
 * Reads the request and its document (pass 1: everything validated, nothing written) and answers
 * where each organisation is kept: the spool for the current format, memory for the version-1
 * one. 400 naming the first invalid paths.
 */
async function loadDocument(input: ImportInput, deps: ImportDeps, signal: { readonly aborted: boolean }): Promise<{ orgs: OrgSource[]; timeoutMs: number; notifyUsers: boolean }> {
  const { spool } = input;
  // Reading and validating are one pass over the file (spooled-document.ts).
  deps.onPhase?.('validating');
  const requestBytes = (await stat(input.requestFile)).size;
  const read = await spoolDocument({
    file: input.requestFile,
    shape: 'request',
    spool,
    beforeEnvelopeValue: (key) => {
      if (toLowerCamel(key) === 'dataOrgsv1' && requestBytes > MAX_V1_DOCUMENT_BYTES) throw v1TooLarge();
    },
  });
  // The request's own mistakes (no document, two of them, a bad timeout) before the document's.
  const req = parseImportRequest(read.envelope);
  const meta = { timeoutMs: req.timeoutMs, notifyUsers: req.notifyUsers };
  // Problems of the request's fields and of a document read with it (the only one it can carry).
  if (read.problems.count > 0) throw read.problems.toError();
  if (req.source.kind === 'inline') {
    if (req.source.version === 1) return { orgs: inMemorySources(parseDataOrgsV1(req.source.data)), ...meta };
    // Not an object (so not read as a stream): refused by the same validation.
    if (req.source.data !== SPOOLED_DOCUMENT) return { orgs: inMemorySources(parseDataOrgs(req.source.data)), ...meta };
    return { orgs: read.orgs, ...meta };
  }
  const { location, version } = req.source;
  const maxBytes = version === 1 ? MAX_V1_DOCUMENT_BYTES : deps.maxBytes;
  const file = spool.file('document.json');
  const object = await readGcsObject(location, { ...deps.gcs, maxBytes });
  try {
    await spoolTo(file, object, Number.POSITIVE_INFINITY, () => new Error('unreachable: readGcsObject counts'));
  } catch (error) {
    throw gcsError(error, location);
  }
  if (signal.aborted) throw timeoutError(req.timeoutMs, []);
  if (version === 1) return { orgs: inMemorySources(parseDataOrgsV1(await readFile(file, 'utf8'))), ...meta };
  const doc = await spoolDocument({ file, shape: 'document', spool });
  if (doc.problems.count > 0) throw doc.problems.toError();
  return { orgs: doc.orgs, ...meta };
}

export async function importData(store: Store, ctx: RequestContext, input: ImportInput, deps: ImportDeps = {}): Promise<ImportDataResponse> {
  requirePermission(ctx, 'iam.write');
  const secrets = deps.secrets ?? processSecretBox();
  // The deadline covers reading and validating too; its length is known only after parsing.
  // performance.now() rather than a timer: checked between steps, it cannot miss a short deadline.
  const started = performance.now();
  let deadline = Number.POSITIVE_INFINITY;
  const signal = { get aborted() { return performance.now() >= deadline || deps.signal?.aborted === true; } };
  const { orgs: sources, timeoutMs, notifyUsers } = await loadDocument(input, deps, signal);
  deps.onPhase?.('importing', { orgs: sources.length, users: sources.reduce((n, source) => n + usersOf(source.skeleton), 0) });
  deadline = started + timeoutMs;
  if (signal.aborted) throw timeoutError(timeoutMs, []);

  const errors: ImportError[] = [];
  const missingUsers = new Map<string, number>();
  const orgs: ImportSuccessOrg[] = [];
  const timedOut = () => timeoutError(timeoutMs, orgs.map((o) => o.orgId));
  // Set once, at the first start: the suffix of the organisations' generated domains.
  const instanceDomain = (await store.read.instance.get())?.domain ?? 'localhost';
  try {
    // The order and the locks come from the skeletons (ids only); each organisation is read back
    // from where it is kept when its turn comes (spooled-document.ts).
    const sourceOf = new Map(sources.map((source) => [source.skeleton, source]));
    const ordered = importOrder(sources.map((source) => source.skeleton));
    const later = usersImportedLater(ordered);
    const deferred: { success: ImportSuccessOrg; refs: OrgReferences }[] = [];
    for (const [index, org] of ordered.entries()) {
      const source = sourceOf.get(org)!;
      // Plain passwords are hashed before the transaction: argon2 is slow on purpose.
      const plainHashes = new Map<string, string>();
      if (source.hasPlainPasswords) {
        for await (const batch of source.userBatches(USER_BATCH)) {
          for (const h of batch.humanUsers ?? []) {
            if (h.user.password && !h.user.hashedPassword?.value) plainHashes.set(h.userId, await hashPassword(h.user.password));
            if (signal.aborted) throw timedOut();
          }
        }
      }
      const orgErrors: ImportError[] = [];
      const orgMissingUsers = new Map<string, number>();
      const context: Omit<OrgImportContext, 'org'> = {
        instanceId: ctx.instanceId, plainHashes, signal, errors: orgErrors, importedLater: later[index], onTimeout: timedOut, missingUsers: orgMissingUsers, notifyUsers,
        sealOtp: (base32) => sealOtpSecret(secrets, base32),
        sealIdpSecret: (clientSecret) => secrets.seal(clientSecret, OIDC_CLIENT_SECRET_PURPOSE),
      };
      const done = await store.transaction(async (tx) => {
        // The store may run a transaction more than once (a group that failed runs each of its
        // transactions again alone): what one reports starts afresh on every run.
        orgErrors.length = 0;
        orgMissingUsers.clear();
        context.deferred = undefined;
        const imported = await importOrgInBatches(tx, context, source, USER_BATCH);
        // The audit record commits with the organisation: one that survives a crash later in the
        // import still says who brought it in, and with what.
        if (imported) await tx.events.append(orgImportEvent(ctx, imported, orgErrors.length));
        if (imported) await deps.onOrgCommit?.(tx, imported.orgId);
        return imported;
      }, orgImportLocks(org, ctx.instanceId, instanceDomain));
      errors.push(...orgErrors);
      addCounts(missingUsers, orgMissingUsers);
      if (done) orgs.push(done);
      if (done && context.deferred) deferred.push({ success: done, refs: context.deferred });
      deps.onProgress?.({ step: 'import', orgId: done?.orgId ?? org.orgId ?? '', done: index + 1, total: ordered.length, users: usersOf(org), elapsedMs: Math.round(performance.now() - started) });
      await yieldToEventLoop();
    }
    // Organisations that name each other's users both ways: the references to users of
    // organisations imported after them, now that those exist (one transaction per organisation).
    // Every project grant first: user grants given through one (of any organisation) need it.
    const passes = [
      deferred.map(({ success, refs }) => ({ success, refs: { projectGrants: refs.projectGrants } })),
      deferred.map(({ success, refs: { projectGrants: _, ...rest } }) => ({ success, refs: rest })),
    ];
    for (const pass of passes) {
      for (const { success, refs } of pass) {
        if (!Object.values(refs).some((list) => list?.length)) continue;
        const refErrors: ImportError[] = [];
        const check = () => {
          if (signal.aborted) throw timedOut();
        };
        // Staged like the organisation's own errors: reported only once its transaction has committed.
        let added: ImportSuccessOrg = { orgId: success.orgId };
        const refMissingUsers = new Map<string, number>();
        await store.transaction((tx) => {
          // Afresh on every run, as the organisation's own.
          refErrors.length = 0;
          refMissingUsers.clear();
          added = { orgId: success.orgId };
          return importReferences(tx, { orgId: success.orgId, refs, errors: refErrors, ok: added, check, at: new Date(), missingUsers: refMissingUsers });
        });
        errors.push(...refErrors);
        addCounts(missingUsers, refMissingUsers);
        for (const key of ['userGrants', 'orgMembers', 'projectMembers', 'projectGrants', 'projectGrantMembers'] as const) {
          if (added[key]) (success[key] as unknown[]) = [...(success[key] ?? []), ...added[key]];
        }
      }
    }
  } catch (error) {
    if (signal.aborted && !(error instanceof DomainError && error.code === GrpcCode.DeadlineExceeded)) {
      await audit(store, ctx, orgs, errors.length, true);
      throw timedOut();
    }
    if (orgs.length) await audit(store, ctx, orgs, errors.length, signal.aborted);
    throw error;
  }
  await audit(store, ctx, orgs, errors.length, false);
  const warnings = [...missingUsers].map(([userId, count]) => ({
    type: 'user',
    id: userId,
    message: msg('IMPORT-usr0t', `user ${userId} is neither in the document nor on this instance; ${count} grant(s)/membership(s) naming it were not imported`),
  }));
  return { ...(errors.length ? { errors } : {}), ...(warnings.length ? { warnings } : {}), success: orgs.length ? { orgs } : {} };
}

/** The users of an organisation entry (its skeleton keeps their ids; an import job's progress counts them). */
const usersOf = (org: DataOrg) => (org.humanUsers?.length ?? 0) + (org.machineUsers?.length ?? 0);

/** Adds the counts of `from` to those of `into`. */
function addCounts(into: Map<string, number>, from: Map<string, number>): void {
  for (const [key, count] of from) into.set(key, (into.get(key) ?? 0) + count);
}

/** `org.data.imported`, in the organisation's own transaction: what this import brought into it. */
function orgImportEvent(ctx: RequestContext, org: ImportSuccessOrg, errorCount: number) {
  const count = (key: keyof ImportSuccessOrg) => (org[key] as unknown[] | undefined)?.length ?? 0;
  return {
    aggregateType: 'org',
    aggregateId: org.orgId,
    type: ORG_IMPORT_EVENT,
    payload: {
      humanUsers: count('humanUserIds'),
      machineUsers: count('machineUserIds'),
      projects: count('projectIds'),
      oidcApps: count('oidcAppIds'),
      userGrants: count('userGrants'),
      machineKeys: count('machineKeys'),
      appKeys: count('appKeys'),
      errors: errorCount,
    },
    creator: ctx.caller.userId,
    resourceOwner: org.orgId,
  };
}

/** The summary event of an import, after all organisations: who imported which, and how much. */
async function audit(store: Store, ctx: RequestContext, orgs: ImportSuccessOrg[], errorCount: number, timedOut: boolean) {
  const count = (key: keyof ImportSuccessOrg) => orgs.reduce((n, o) => n + ((o[key] as unknown[] | undefined)?.length ?? 0), 0);
  await store.transaction((tx) =>
    tx.events.append({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: IMPORT_EVENT,
      payload: {
        orgIds: orgs.map((o) => o.orgId),
        humanUsers: count('humanUserIds'),
        machineUsers: count('machineUserIds'),
        projects: count('projectIds'),
        userGrants: count('userGrants'),
        errors: errorCount,
        ...(timedOut ? { timedOut: true } : {}),
      },
      creator: ctx.caller.userId,
      resourceOwner: ctx.instanceId,
    }),
  );
}
