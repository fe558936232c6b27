/**
 * ImportData (reference §5, description §4.5), done better than ZITADEL (reference §5.6, §9):
 * the whole document is validated before anything is written; each organisation is imported
 * in one transaction; existing resources are reported, skipped or overwritten as the request's
 * `conflictPolicy` says, never duplicated; a timeout rolls the organisation in progress back; a
 * missing timeout takes DEFAULT_TRANSFER_TIMEOUT_MS; an import that writes anything writes one
 * audit event naming the caller and the organisations (one that finds nothing to do writes none).
 * A dry run (`dryRun`) is the same import in one transaction that is rolled back (dryRunIn).
 */
import { processSecretBox, type SecretBox } from '../../secrets/secret-box.js';
import { sealOtpSecret } from '../users/otp-secret.js';
import { OIDC_CLIENT_SECRET_PURPOSE } from '../idps/idp.js';
import { hashPassword } from '../../auth/passwords.js';
import { verifyPassword } from '../../auth/password-verifier.js';
import type { AggregateLock, Store } from '../../store/store.js';
import { readGcsText, type GcsOptions } from '../../storage/gcs.js';
import { requirePermission, type RequestContext } from '../context.js';
import { DomainError, GrpcCode, invalidArgument } from '../errors.js';
import type { DataOrg, DataOrgs } from './document.js';
import { importOrder, usersImportedLater } from './import-order.js';
import { importOrg, type OrgImportContext } from './import-org.js';
import { orgImportLocks } from './import/org.js';
import { importReferences, type OrgReferences } from './import/references.js';
import { msg, noOutcomes, OrgImport, timeoutError, type ConflictPolicy, type ImportError, type ImportSuccessOrg, type OutcomeCounts, type OutcomeSink, type ResourceOutcome } from './import/report.js';
import type { OnTransferProgress } from './progress.js';
import { parseImportRequest } from './request.js';
import { parseDataOrgsV1 } from './v1.js';
import { parseDataOrgs } from './validate.js';

export interface ImportDeps {
  gcs?: GcsOptions;
  /** Seals TOTP secrets (`otpCode`) at rest (default: the process's operator key). */
  secrets?: SecretBox;
  /** Largest document read from storage (the inline body is limited by the HTTP layer). */
  maxBytes?: number;
  onProgress?: OnTransferProgress;
}

export interface ImportDataResponse {
  errors?: ImportError[];
  warnings?: ImportError[];
  success: { orgs?: ImportSuccessOrg[] };
  /** How many resources of the document were created, left unchanged, changed, refused. */
  summary: OutcomeCounts;
  /** A dry run's answer: nothing was written; `resources` says what the import would do with each. */
  dryRun?: true;
  resources?: ResourceOutcome[];
}

export const IMPORT_EVENT = 'instance.data.imported';
/** Written per organisation, in its own transaction (see orgImportEvent). */
export const ORG_IMPORT_EVENT = 'org.data.imported';

/** Parses, loads and validates the request's document; 400 naming the first invalid paths. */
async function loadDocument(raw: unknown, deps: ImportDeps, signal: { readonly aborted: boolean }) {
  const req = parseImportRequest(raw);
  let data: unknown;
  if (req.source.kind === 'inline') {
    data = req.source.data;
  } else {
    const text = await readGcsText(req.source.location, { ...deps.gcs, maxBytes: deps.maxBytes });
    if (signal.aborted) throw timeoutError(req.timeoutMs, []);
    if (req.source.version === 2) {
      try {
        data = JSON.parse(text);
      } catch (error) {
        throw invalidArgument('IMPORT-js0n1', `invalid dataOrgsGcs: the object is not a JSON document (${(error as Error).message})`);
      }
    } else {
      data = text;
    }
  }
  const doc = req.source.version === 1 ? parseDataOrgsV1(data) : parseDataOrgs(data);
  return { doc, timeoutMs: req.timeoutMs, notifyUsers: req.notifyUsers, conflictPolicy: req.conflictPolicy, dryRun: req.dryRun };
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
  onProgress?: OnTransferProgress;
}

/** The parts of the store the import's flow uses: a dry run hands it its own transaction as both. */
type ImportStore = Pick<Store, 'read' | 'transaction'>;

export async function importData(store: Store, ctx: RequestContext, raw: unknown, deps: ImportDeps = {}): Promise<ImportDataResponse> {
  requirePermission(ctx, 'iam.write');
  const secrets = deps.secrets ?? processSecretBox();
  // The deadline covers reading and validating too; its length is known only after parsing.
  // performance.now() rather than a timer: checked between steps, it cannot miss a short deadline.
  const started = performance.now();
  let deadline = Number.POSITIVE_INFINITY;
  const signal = { get aborted() { return performance.now() >= deadline; } };
  const { doc, timeoutMs, notifyUsers, conflictPolicy, dryRun } = await loadDocument(raw, deps, signal);
  deadline = started + timeoutMs;
  if (signal.aborted) throw timeoutError(timeoutMs, []);
  const run: ImportRun = {
    ctx, secrets, signal, started, timeoutMs, notifyUsers, policy: conflictPolicy, listOutcomes: dryRun, onProgress: deps.onProgress,
    // A dry run's stand-in: which hash a new password gets changes no outcome, only that it has one.
    hashPlain: dryRun ? async () => DRY_RUN_HASH : hashPassword,
  };
  if (!dryRun) return importDocument(store, doc, run);
  const instanceDomain = (await store.read.instance.get())?.domain ?? 'localhost';
  const locks = doc.orgs.flatMap((org) => orgImportLocks(org, ctx.instanceId, instanceDomain));
  return { ...(await dryRunIn(store, locks, (inside) => importDocument(inside, doc, run))), dryRun: true };
}

const DRY_RUN_HASH = '(dry run)';

class DryRunOver extends Error {
  constructor(readonly result: ImportDataResponse) {
    super('dry run: rolled back');
  }
}

/**
 * A dry run: the very import code, in one transaction rolled back at its end, so its answer is
 * what the import would answer now and nothing stays (no row, no event, no queued mail). Each of
 * the import's transactions runs inside that one (organisations imported later see the earlier
 * ones, as they would); it holds every organisation's locks from the start, and on SQLite the
 * write lock for its whole length (writes of the service wait for it, as for one large import).
 */
async function dryRunIn(store: Store, locks: AggregateLock[], importIn: (inside: ImportStore) => Promise<ImportDataResponse>): Promise<ImportDataResponse> {
  try {
    await store.transaction(async (tx) => {
      throw new DryRunOver(await importIn({ read: tx, transaction: (fn) => fn(tx) }));
    }, locks);
  } catch (error) {
    if (error instanceof DryRunOver) return error.result;
    throw error;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

/**
 * Plain passwords are hashed before the organisation's transaction: argon2 is slow on purpose.
 * Under OVERWRITE a user here whose hash already matches the document's password keeps it
 * (a new hash would differ every time, and a re-import would never find the user unchanged).
 */
async function plainPasswordHashes(store: ImportStore, org: DataOrg, run: ImportRun, onTimeout: () => DomainError): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const h of org.humanUsers ?? []) {
    if (!h.user.password || h.user.hashedPassword?.value) continue;
    const here = run.policy === 'OVERWRITE' ? (await store.read.users.get(h.userId))?.passwordHash : undefined;
    const kept = here && (await verifyPassword(h.user.password, here)).ok ? here : undefined;
    hashes.set(h.userId, kept ?? (await run.hashPlain(h.user.password)));
    if (run.signal.aborted) throw onTimeout();
  }
  return hashes;
}

/** Adds `from`'s outcomes to `into`'s. */
function addOutcomes(into: OutcomeSink, from: OutcomeSink): void {
  for (const key of Object.keys(into.counts) as (keyof OutcomeCounts)[]) into.counts[key] += from.counts[key];
  if (from.list) into.list?.push(...from.list);
}

/** The organisations of `doc`, each in a transaction of its own, then the references deferred between them. */
async function importDocument(store: ImportStore, doc: DataOrgs, run: ImportRun): Promise<ImportDataResponse> {
  const { ctx, secrets, signal, started, timeoutMs, notifyUsers } = run;
  const newSink = (): OutcomeSink => ({ counts: noOutcomes(), ...(run.listOutcomes ? { list: [] } : {}) });
  const outcomes = newSink();
  const errors: ImportError[] = [];
  const missingUsers = new Map<string, number>();
  const orgs: ImportSuccessOrg[] = [];
  const timedOut = () => timeoutError(timeoutMs, orgs.map((o) => o.orgId));
  // Set once, at the first start: the suffix of the organisations' generated domains.
  const instanceDomain = (await store.read.instance.get())?.domain ?? 'localhost';
  try {
    const ordered = importOrder(doc.orgs);
    const later = usersImportedLater(ordered);
    const deferred: { success: ImportSuccessOrg; refs: OrgReferences }[] = [];
    for (const [index, org] of ordered.entries()) {
      const plainHashes = await plainPasswordHashes(store, org, run, timedOut);
      const orgErrors: ImportError[] = [];
      const orgMissingUsers = new Map<string, number>();
      let orgOutcomes = newSink();
      const context: OrgImportContext = {
        instanceId: ctx.instanceId, org, plainHashes, signal, errors: orgErrors, importedLater: later[index], onTimeout: timedOut, missingUsers: orgMissingUsers, notifyUsers,
        sealOtp: (base32) => sealOtpSecret(secrets, base32),
        sealIdpSecret: (clientSecret) => secrets.seal(clientSecret, OIDC_CLIENT_SECRET_PURPOSE),
        isIdpSecret: (sealed, clientSecret) => {
          try {
            return secrets.openText(sealed, OIDC_CLIENT_SECRET_PURPOSE) === clientSecret;
          } catch {
            return false; // sealed under a key no longer held: the document's replaces it
          }
        },
        policy: run.policy, outcomes: orgOutcomes, creator: ctx.caller.userId,
      };
      const done = await store.transaction(async (tx) => {
        // The store may run a transaction more than once (a group that failed runs each of its
        // transactions again alone): what one reports starts afresh on every run.
        orgErrors.length = 0;
        orgMissingUsers.clear();
        context.outcomes = orgOutcomes = newSink();
        context.deferred = undefined;
        const imported = await importOrg(tx, context);
        // The audit record commits with the organisation: one that survives a crash later in the
        // import still says who brought it in, and with what. Nothing brought in, no record.
        if (imported && orgOutcomes.counts.created + orgOutcomes.counts.changed > 0) await tx.events.append(orgImportEvent(ctx, imported, orgErrors.length, orgOutcomes.counts));
        return imported;
      }, orgImportLocks(org, ctx.instanceId, instanceDomain));
      errors.push(...orgErrors);
      addCounts(missingUsers, orgMissingUsers);
      addOutcomes(outcomes, orgOutcomes);
      if (done) orgs.push(done);
      if (done && context.deferred) deferred.push({ success: done, refs: context.deferred });
      run.onProgress?.({ step: 'import', orgId: done?.orgId ?? org.orgId ?? '', done: index + 1, total: ordered.length, elapsedMs: Math.round(performance.now() - started) });
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
        let refOutcomes = newSink();
        await store.transaction((tx) => {
          // Afresh on every run, as the organisation's own.
          refErrors.length = 0;
          refMissingUsers.clear();
          added = { orgId: success.orgId };
          refOutcomes = newSink();
          return importReferences(tx, refs, new OrgImport(success.orgId, new Date(), refErrors, added, check, refMissingUsers, run.policy, refOutcomes, ctx.caller.userId));
        });
        errors.push(...refErrors);
        addCounts(missingUsers, refMissingUsers);
        addOutcomes(outcomes, refOutcomes);
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
  // An import that found nothing to do (the same document again) leaves no trace in the event log.
  if (outcomes.counts.created + outcomes.counts.changed > 0) await audit(store, ctx, orgs, errors.length, false, outcomes.counts);
  const warnings = [...missingUsers].map(([userId, count]) => ({
    type: 'user',
    id: userId,
    message: msg('IMPORT-usr0t', `user ${userId} is neither in the document nor on this instance; ${count} grant(s)/membership(s) naming it were not imported`),
  }));
  return {
    ...(errors.length ? { errors } : {}), ...(warnings.length ? { warnings } : {}), success: orgs.length ? { orgs } : {},
    summary: outcomes.counts, ...(outcomes.list ? { resources: outcomes.list } : {}),
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
