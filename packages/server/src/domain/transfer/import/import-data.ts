/**
 * ImportData (reference §5, description §4.5), done better than ZITADEL (reference §5.6, §9):
 * the whole document is validated before anything is written; each organisation is imported
 * in one transaction; existing resources are reported, skipped or overwritten as the request's
 * `conflictPolicy` says, never duplicated; a timeout rolls the organisation in progress back; a
 * missing timeout takes DEFAULT_TRANSFER_TIMEOUT_MS; an import that writes anything writes one
 * audit event naming the caller and the organisations (one that finds nothing to do writes none).
 * A dry run (`dryRun`) is the same import in one transaction that is rolled back, and an import
 * under the FAIL policy the same import in one transaction that a conflict rolls back (inOneTransaction).
 */

import { stat } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { verifyPassword } from '../../../auth/password-verifier.js';
import { hashPassword } from '../../../auth/passwords.js';
import { processSecretBox, type SecretBox } from '../../../secrets/secret-box.js';
import { type GcsOptions, gcsError, readGcsObject } from '../../../storage/gcs.js';
import type { AggregateLock, Repositories, Store } from '../../../store/store.js';
import { type RequestContext, requirePermission } from '../../context.js';
import { DomainError, GrpcCode } from '../../errors.js';
import { OIDC_CLIENT_SECRET_PURPOSE } from '../../idps/idp.js';
import { openOtpSecret, sealOtpSecret } from '../../users/otp-secret.js';
import { type AnswerList, AnswerSpill } from '../answer-lists.js';
import { acquireReader, type DocumentReader, releaseReader } from '../document-reader.js';
import type { OnOrgUsersProgress, OnTransferProgress } from '../progress.js';
import { parseImportRequest } from '../request.js';
import { type ImportFile, plainBytes, readSealed, type SealedFile } from '../sealed-file.js';
import { type Spool, spoolTo } from '../spool.js';
import { type DocumentSources, inMemorySources, type OrgSource, SPOOLED_DOCUMENT, USER_BATCH } from '../spooled-document.js';
import { MAX_V1_DOCUMENT_BYTES, parseDataOrgsV1, v1TooLarge } from '../v1.js';
import { parseDataOrgs } from '../validate.js';
import { importedLater } from './order.js';
import { orgImportLocks } from './org.js';
import { importOrgEntry, type OrgImportContext } from './org-entry.js';
import { importReferences, type OrgReferences } from './references.js';
import {
  addOutcomes,
  type ConflictPolicy,
  type ImportError,
  type ImportSuccessOrg,
  msg,
  newOutcomeSink,
  OrgImport,
  type OutcomeCounts,
  type OutcomeSink,
  type ResourceOutcome,
  timeoutError,
} from './report.js';

export interface ImportDeps {
  gcs?: GcsOptions;
  /** Seals TOTP secrets (`otpCode`) at rest (default: the process's operator key). */
  secrets?: SecretBox;
  /** Largest document read from Cloud Storage in the current format (default: none, the disk is the bound). */
  maxBytes?: number;
  onProgress?: OnTransferProgress;
  /** During an organisation's import, after each batch of its users (an import job shows users done as they go). */
  onOrgUsersProgress?: OnOrgUsersProgress;
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
  /** The request, sealed in the spool (or a job's file, job-documents.ts). */
  request: ImportFile;
  spool: Spool;
}

/**
 * ImportData's answer. Its lists that grow with the document (ids, errors, a dry run's outcomes)
 * are answer lists (answer-lists.ts), in the spool once they grow: write it with `jsonText`
 * before the spool is removed.
 */
export interface ImportDataResponse {
  errors?: AnswerList<ImportError>;
  warnings?: ImportError[];
  success: { orgs?: ImportSuccessOrg[] };
  /** How many resources of the document were created, left unchanged, changed, skipped, refused. */
  summary: OutcomeCounts;
  /** The same counts per kind of resource (`human_user`, `project`, …), kinds with none left out. */
  summaryByType: Record<string, OutcomeCounts>;
  /** A dry run's answer: nothing was written; `resources` says what the import would do with each. */
  dryRun?: true;
  resources?: AnswerList<ResourceOutcome>;
}

export { MAX_V1_DOCUMENT_BYTES };

export const IMPORT_EVENT = 'instance.data.imported';
/** Written per organisation, in its own transaction (see orgImportEvent). */
export const ORG_IMPORT_EVENT = 'org.data.imported';

/**
 * Reads the request and its document (pass 1: everything validated, nothing written) and answers
 * where each organisation is kept: the spool for the current format, memory for the version-1
 * one. 400 naming the first invalid paths.
 */
async function loadDocument(
  input: ImportInput,
  deps: ImportDeps,
  signal: { readonly aborted: boolean },
  reader: DocumentReader,
): Promise<{ doc: DocumentSources; timeoutMs: number; notifyUsers: boolean; conflictPolicy: ConflictPolicy; dryRun: boolean }> {
  const { spool } = input;
  // Reading and validating are one pass over the file (spooled-document.ts).
  deps.onPhase?.('validating');
  const requestBytes = plainBytes(input.request, (await stat(input.request.path)).size);
  // A dataOrgsv1 in a body over its limit is refused before its value is read.
  const read = await reader.spool({ file: input.request, shape: 'request', spool, refuseV1: requestBytes > MAX_V1_DOCUMENT_BYTES });
  // The request's own mistakes (no document, two of them, a bad timeout) before the document's.
  const req = parseImportRequest(read.envelope);
  const meta = { timeoutMs: req.timeoutMs, notifyUsers: req.notifyUsers, conflictPolicy: req.conflictPolicy, dryRun: req.dryRun };
  // Problems of the request's fields and of a document read with it (the only one it can carry).
  if (read.problems.count > 0) throw read.problems.toError();
  if (req.source.kind === 'inline') {
    if (req.source.version === 1) return { doc: inMemorySources(parseDataOrgsV1(req.source.data)), ...meta };
    // Not an object (so not read as a stream): refused by the same validation.
    if (req.source.data !== SPOOLED_DOCUMENT) return { doc: inMemorySources(parseDataOrgs(req.source.data)), ...meta };
    return { doc: read, ...meta };
  }
  const { location, version } = req.source;
  const maxBytes = version === 1 ? MAX_V1_DOCUMENT_BYTES : deps.maxBytes;
  let file: SealedFile;
  try {
    const object = await readGcsObject(location, { ...deps.gcs, maxBytes });
    ({ file } = await spoolTo(spool, 'document.json', object, Number.POSITIVE_INFINITY, () => new Error('unreachable: readGcsObject counts')));
  } catch (error) {
    const failure = gcsError(error, location);
    // A v1 object past its own limit: say why it has one, and what has none.
    throw version === 1 && failure.id === 'GCS-t00B1g' ? v1TooLarge(`gs://${location.bucket}/${location.path} (dataOrgsv1Gcs, a version-1 document)`, 'dataOrgsGcs') : failure;
  }
  if (signal.aborted) throw timeoutError(req.timeoutMs, []);
  if (version === 1) return { doc: inMemorySources(parseDataOrgsV1((await readSealed(file)).toString('utf8'))), ...meta };
  const doc = await reader.spool({ file, shape: 'document', spool });
  if (doc.problems.count > 0) throw doc.problems.toError();
  return { doc, ...meta };
}

/** What the import's flow (importDocument) needs besides the store and the document. */
interface ImportRun {
  ctx: RequestContext;
  secrets: SecretBox;
  signal: { readonly aborted: boolean };
  started: number;
  timeoutMs: number;
  notifyUsers: boolean;
  policy: ConflictPolicy;
  /** List every resource's outcome (a dry run), not only count them. */
  listOutcomes: boolean;
  /** Hash plain passwords (a dry run only needs to know there is one). */
  hashPlain: (plain: string) => Promise<string>;
  /** Where the answer's lists are kept. */
  spill: AnswerSpill;
  onProgress?: OnTransferProgress;
  onOrgUsersProgress?: OnOrgUsersProgress;
  onOrgCommit?: ImportDeps['onOrgCommit'];
}

/** The parts of the store the import's flow uses: a dry run hands it its own transaction as both. */
type ImportStore = Pick<Store, 'read' | 'transaction'>;

export async function importData(store: Store, ctx: RequestContext, input: ImportInput, deps: ImportDeps = {}): Promise<ImportDataResponse> {
  requirePermission(ctx, 'iam.write');
  // The deadline covers reading and validating too; its length is known only after parsing.
  // performance.now() rather than a timer: checked between steps, it cannot miss a short deadline.
  const started = performance.now();
  let deadline = Number.POSITIVE_INFINITY;
  const signal = {
    get aborted() {
      return performance.now() >= deadline || deps.signal?.aborted === true;
    },
  };
  // The document is read in a worker thread while the import runs (document-reader.ts).
  const reader = acquireReader();
  try {
    const spill = new AnswerSpill(input.spool.sealed('answer.records'));
    input.spool.onRemove(() => spill.close());
    return await importRead(store, ctx, await loadDocument(input, deps, signal, reader), deps, spill, signal, started, (at) => (deadline = at));
  } finally {
    await releaseReader(reader);
  }
}

/** importData once its document is read and validated (pass 2). */
async function importRead(
  store: Store,
  ctx: RequestContext,
  read: Awaited<ReturnType<typeof loadDocument>>,
  deps: ImportDeps,
  spill: AnswerSpill,
  signal: { readonly aborted: boolean },
  started: number,
  setDeadline: (at: number) => void,
): Promise<ImportDataResponse> {
  const { doc, timeoutMs, notifyUsers, conflictPolicy, dryRun } = read;
  const sources = doc.orgs;
  const secrets = deps.secrets ?? processSecretBox();
  deps.onPhase?.('importing', { orgs: sources.length, users: sources.reduce((n, source) => n + source.users, 0) });
  setDeadline(started + timeoutMs);
  if (signal.aborted) throw timeoutError(timeoutMs, []);
  const run: ImportRun = {
    ctx,
    secrets,
    signal,
    started,
    timeoutMs,
    notifyUsers,
    policy: conflictPolicy,
    listOutcomes: dryRun,
    spill,
    onProgress: deps.onProgress,
    onOrgUsersProgress: deps.onOrgUsersProgress,
    onOrgCommit: deps.onOrgCommit,
    // A dry run's stand-in: which hash a new password gets changes no outcome, only that it has one.
    hashPlain: dryRun ? async () => DRY_RUN_HASH : hashPassword,
  };
  if (!dryRun && conflictPolicy !== 'FAIL') return importDocument(store, doc, run);
  const instanceDomain = (await store.read.instance.get())?.domain ?? 'localhost';
  // The skeletons carry the names and domains the locks are taken on (spooled-document.ts).
  const locks = sources.flatMap((source) => orgImportLocks(source.skeleton, ctx.instanceId, instanceDomain));
  if (dryRun) return { ...(await inOneTransaction(store, locks, run, (inside, r) => importDocument(inside, doc, r), 'roll back')), dryRun: true };
  return inOneTransaction(store, locks, run, (inside, r) => importDocument(inside, doc, r), 'commit');
}

const DRY_RUN_HASH = '(dry run)';

class DryRunOver extends Error {
  constructor(readonly result: ImportDataResponse) {
    super('dry run: rolled back');
  }
}

/**
 * The very import code in one transaction of the store, holding every organisation's locks from the
 * start: each of the import's transactions runs inside it (organisations imported later see the
 * earlier ones, as they would), and on SQLite it holds the write lock for its whole length (writes
 * of the service wait for it, as for one large import).
 * - A dry run (`roll back`) rolls it back at its end, so its answer is what the import would answer
 *   now and nothing stays (no row, no event, no queued mail).
 * - An import under the FAIL policy (`commit`) commits it unless something fails: its first conflict
 *   throws (ImportConflict, import/report.ts), and then nothing of the import stays, as after a dry run.
 *   The organisations an import job records as committed are recorded at its end, in it (the job's
 *   row is then locked only for that moment, not from the first organisation on).
 */
async function inOneTransaction(
  store: Store,
  locks: AggregateLock[],
  run: ImportRun,
  importIn: (inside: ImportStore, run: ImportRun) => Promise<ImportDataResponse>,
  end: 'roll back' | 'commit',
): Promise<ImportDataResponse> {
  const committed: string[] = [];
  const inner: ImportRun = { ...run, onOrgCommit: run.onOrgCommit && (async (_tx, orgId) => void committed.push(orgId)) };
  try {
    return await store.transaction(async (tx) => {
      const result = await importIn({ read: tx, transaction: (fn) => fn(tx) }, inner);
      if (end === 'roll back') throw new DryRunOver(result);
      for (const orgId of committed) await run.onOrgCommit?.(tx, orgId);
      return result;
    }, locks);
  } catch (error) {
    if (error instanceof DryRunOver) return error.result;
    // Whatever the timeout says it completed was rolled back with the rest.
    if (error instanceof DomainError && error.id === 'IMPORT-t1me0') {
      throw new DomainError(
        GrpcCode.DeadlineExceeded,
        error.id,
        `import timed out after ${run.timeoutMs / 1000}s; it ran in one transaction (${end === 'commit' ? 'conflictPolicy FAIL' : 'a dry run'}), which was rolled back: nothing was imported`,
      );
    }
    throw error;
  }
}

/**
 * Plain passwords are hashed before the organisation's transaction: argon2 is slow on purpose.
 * Under OVERWRITE a user here whose hash already matches the document's password keeps it
 * (a new hash would differ every time, and a re-import would never find the user unchanged).
 */
async function plainPasswordHashes(store: ImportStore, source: OrgSource, run: ImportRun, onTimeout: () => DomainError): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  if (!source.hasPlainPasswords) return hashes;
  for await (const batch of source.userBatches(USER_BATCH)) {
    for (const h of batch.humanUsers ?? []) {
      if (!h.user.password || h.user.hashedPassword?.value) continue;
      const here = run.policy === 'OVERWRITE' ? (await store.read.users.get(h.userId))?.passwordHash : undefined;
      const kept = here && (await verifyPassword(h.user.password, here)).ok ? here : undefined;
      hashes.set(h.userId, kept ?? (await run.hashPlain(h.user.password)));
      if (run.signal.aborted) throw onTimeout();
    }
  }
  return hashes;
}

/** The organisations of `doc`, each in a transaction of its own, then the references deferred between them. */
async function importDocument(store: ImportStore, doc: DocumentSources, run: ImportRun): Promise<ImportDataResponse> {
  const { ctx, secrets, signal, started, timeoutMs, notifyUsers } = run;
  const newSink = (): OutcomeSink => newOutcomeSink(run.listOutcomes ? run.spill.list() : undefined);
  const outcomes = newSink();
  const errors = run.spill.list<ImportError>();
  const missingUsers = new Map<string, number>();
  const orgs: ImportSuccessOrg[] = [];
  const timedOut = () =>
    timeoutError(
      timeoutMs,
      orgs.map((o) => o.orgId),
    );
  // Set once, at the first start: the suffix of the organisations' generated domains.
  const instanceDomain = (await store.read.instance.get())?.domain ?? 'localhost';
  try {
    // The order was planned as the document was read (order.ts), the locks come from the
    // skeletons; each organisation is read back from where it is kept when its turn comes
    // (spooled-document.ts), its users a batch at a time.
    const { order } = doc.plan;
    const deferred: { success: ImportSuccessOrg; refs: OrgReferences }[] = [];
    for (const [index, orgIndex] of order.entries()) {
      const source = doc.orgs[orgIndex];
      const org = source.skeleton;
      const plainHashes = await plainPasswordHashes(store, source, run, timedOut);
      let orgErrors = run.spill.list<ImportError>();
      const orgMissingUsers = new Map<string, number>();
      let orgOutcomes = newSink();
      const context: OrgImportContext = {
        instanceId: ctx.instanceId,
        org: await source.parts(),
        userBatches: () => source.userBatches(USER_BATCH),
        plainHashes,
        signal,
        errors: orgErrors,
        importedLater: importedLater(doc.plan, index),
        onTimeout: timedOut,
        missingUsers: orgMissingUsers,
        notifyUsers,
        sealOtp: (base32) => sealOtpSecret(secrets, base32),
        openOtp: (stored) => {
          try {
            return openOtpSecret(secrets, stored);
          } catch {
            return undefined; // sealed under a key no longer held: the document's replaces it
          }
        },
        sealIdpSecret: (clientSecret) => secrets.seal(clientSecret, OIDC_CLIENT_SECRET_PURPOSE),
        isIdpSecret: (sealed, clientSecret) => {
          try {
            return secrets.openText(sealed, OIDC_CLIENT_SECRET_PURPOSE) === clientSecret;
          } catch {
            return false; // sealed under a key no longer held: the document's replaces it
          }
        },
        policy: run.policy,
        outcomes: orgOutcomes,
        importer: ctx,
        onUsersDone: run.onOrgUsersProgress && ((usersDone) => run.onOrgUsersProgress!({ orgId: org.orgId ?? '', usersDone })),
      };
      const done = await store.transaction(
        async (tx) => {
          // The store may run a transaction more than once (a group that failed runs each of its
          // transactions again alone): what one reports starts afresh on every run.
          context.errors = orgErrors = run.spill.list();
          orgMissingUsers.clear();
          context.outcomes = orgOutcomes = newSink();
          context.deferred = undefined;
          const imported = await importOrgEntry(tx, context);
          // The audit record commits with the organisation: one that survives a crash later in the
          // import still says who brought it in, and with what. Nothing brought in, no record.
          if (imported && orgOutcomes.counts.created + orgOutcomes.counts.changed > 0) await tx.events.append(orgImportEvent(ctx, imported, orgErrors.length, orgOutcomes.counts));
          if (imported) await run.onOrgCommit?.(tx, imported.orgId);
          return imported;
        },
        orgImportLocks(org, ctx.instanceId, instanceDomain),
      );
      errors.append(orgErrors);
      addCounts(missingUsers, orgMissingUsers);
      addOutcomes(outcomes, orgOutcomes);
      if (done) orgs.push(done);
      if (done && context.deferred) deferred.push({ success: done, refs: context.deferred });
      run.onProgress?.({ step: 'import', orgId: done?.orgId ?? org.orgId ?? '', done: index + 1, total: order.length, users: source.users, elapsedMs: Math.round(performance.now() - started) });
      // Other requests get their turn between organisations.
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
        let refErrors = run.spill.list<ImportError>();
        const check = () => {
          if (signal.aborted) throw timedOut();
        };
        // Staged like the organisation's own errors: reported only once its transaction has committed.
        let added: ImportSuccessOrg = { orgId: success.orgId };
        const refMissingUsers = new Map<string, number>();
        let refOutcomes = newSink();
        await store.transaction((tx) => {
          // Afresh on every run, as the organisation's own.
          refErrors = run.spill.list();
          refMissingUsers.clear();
          added = { orgId: success.orgId };
          refOutcomes = newSink();
          return importReferences(tx, refs, new OrgImport(success.orgId, new Date(), refErrors, added, check, refMissingUsers, run.policy, refOutcomes, ctx));
        });
        errors.append(refErrors);
        addCounts(missingUsers, refMissingUsers);
        addOutcomes(outcomes, refOutcomes);
        for (const key of ['userGrants', 'orgMembers', 'projectMembers', 'projectGrants', 'projectGrantMembers'] as const) {
          const more = added[key] as AnswerList<unknown> | undefined;
          if (!more) continue;
          if (success[key]) (success[key] as AnswerList<unknown>).append(more);
          else (success as unknown as Record<string, unknown>)[key] = more;
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
  // An import that found nothing to do (the same document again) leaves no trace in the event log.
  if (outcomes.counts.created + outcomes.counts.changed > 0) await audit(store, ctx, orgs, errors.length, false, outcomes.counts);
  const warnings = [...missingUsers].map(([userId, count]) => ({
    type: 'user',
    id: userId,
    message: msg('IMPORT-usr0t', `user ${userId} is neither in the document nor on this instance; ${count} grant(s)/membership(s) naming it were not imported`),
  }));
  return {
    ...(errors.length ? { errors } : {}),
    ...(warnings.length ? { warnings } : {}),
    success: orgs.length ? { orgs } : {},
    summary: outcomes.counts,
    summaryByType: outcomes.byType,
    ...(outcomes.list ? { resources: outcomes.list } : {}),
  };
}

/** Adds the counts of `from` to those of `into`. */
function addCounts(into: Map<string, number>, from: Map<string, number>): void {
  for (const [key, count] of from) into.set(key, (into.get(key) ?? 0) + count);
}

/** `org.data.imported`, in the organisation's own transaction: what this import brought into it. */
function orgImportEvent(ctx: RequestContext, org: ImportSuccessOrg, errorCount: number, outcomes: OutcomeCounts) {
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
      created: outcomes.created,
      changed: outcomes.changed,
    },
    creator: ctx.caller.userId,
    resourceOwner: org.orgId,
  };
}

/** The summary event of an import, after all organisations: who imported which, and how much. */
async function audit(store: ImportStore, ctx: RequestContext, orgs: ImportSuccessOrg[], errorCount: number, timedOut: boolean, outcomes?: OutcomeCounts) {
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
        ...(outcomes ? { created: outcomes.created, changed: outcomes.changed } : {}),
        ...(timedOut ? { timedOut: true } : {}),
      },
      creator: ctx.caller.userId,
      resourceOwner: ctx.instanceId,
    }),
  );
}
