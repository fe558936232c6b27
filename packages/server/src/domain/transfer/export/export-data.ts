/**
 * ExportData (reference §4, description §4.4): the document `{"orgs":[DataOrg…]}` with
 * everything this service holds per organisation, produced as a stream of JSON text so memory
 * does not grow with the organisation: what there is of per user (users, user grants, metadata,
 * links) is read in keyset pages and written in chunks that die young (section.ts). Each kind of
 * resource has its module beside this file, as import/ has; org-entry.ts writes them in the
 * document's order.
 *
 * Not exported (description §2.8, and what this service does not hold): instance settings,
 * IAM members, passkeys; machine keys and application keys unless the request asks for them
 * (`withKeys`: public keys only, as ZITADEL's export carries them, so key files made before a move
 * keep working after it), and with them the hashes of machine users' personal access tokens and
 * client secrets (this service's extensions, document.ts), so a service account works at a target
 * running this service as it did at the source. This service's other extensions: user grants'
 * ids (`identityServiceGrantId`) and the mark on the domain this instance generated for the
 * organisation (`identityServiceGenerated`), which an import leaves to the target's own.
 */
import { processSecretBox, type SecretBox } from '../../../secrets/secret-box.js';
import { type GcsOptions, writeGcsObject } from '../../../storage/gcs.js';
import type { Repositories, Store } from '../../../store/store.js';
import { type RequestContext, requirePermission } from '../../context.js';
import { DomainError, GrpcCode, notFound } from '../../errors.js';
import { changesPrefix, narrowedReads, orgsChangedSince, readChanges } from '../changes.js';
import type { OnTransferProgress } from '../progress.js';
import { type ExportRequest, parseExportRequest } from '../request.js';
import { exportOrgEntry } from './org-entry.js';

export interface ExportDeps {
  gcs?: GcsOptions;
  /** Opens TOTP secrets for `withOtp` (default: the process's operator key). */
  secrets?: SecretBox;
  onProgress?: OnTransferProgress;
}

export interface ExportResult {
  /** Where the document was written, when gcsOutput was given. */
  gcsOutput?: { bucket: string; path: string; bytes: string };
  /** The response body as JSON text chunks, when responseOutput was set. */
  body?: AsyncIterable<string>;
  /** Aborts a streaming body (the caller's deadline). */
  signal: AbortSignal;
}

const timedOut = (timeoutMs: number) => new DomainError(GrpcCode.DeadlineExceeded, 'EXPORT-t1me0', `export timed out after ${timeoutMs / 1000}s`);

/** The document as JSON text, organisation by organisation (export/org-entry.ts). */
export async function* exportDocument(read: Repositories, req: ExportRequest, signal: AbortSignal, secrets: SecretBox, prefix = '', onProgress?: OnTransferProgress): AsyncGenerator<string> {
  const started = performance.now();
  const orgs = await read.transfer.orgsToExport(req.orgIds, req.excludedOrgIds);
  const orgIds = orgs.map((o) => o.id);
  const deadline = () => {
    if (signal.aborted) throw timedOut(req.timeoutMs);
  };
  const instanceDomain = (await read.instance.get())?.domain ?? 'localhost';
  yield `{${prefix}"orgs":[`;
  for (let i = 0; i < orgs.length; i++) {
    deadline();
    const org = orgs[i];
    yield* exportOrgEntry({ read, req, org, orgIds, secrets, instanceDomain, deadline }, i === 0);
    onProgress?.({ step: 'export', orgId: org.id, done: i + 1, total: orgs.length, elapsedMs: Math.round(performance.now() - started) });
  }
  yield ']}';
}

/**
 * Every organisation `orgIds` names must exist: ZITADEL answers an unknown one with an empty
 * document, so a typo in `--org` looked like a successful export of nothing (issue 30). An
 * incremental export also takes one removed after `changedSince` (returned: it reports the removal).
 */
async function requireNamedOrgs(store: Store, orgIds: string[] | undefined, changedSince?: number): Promise<string[]> {
  if (!orgIds?.length) return [];
  const found = new Set((await store.read.transfer.orgsToExport(orgIds, [])).map((o) => o.id));
  let unknown = [...new Set(orgIds)].filter((id) => !found.has(id));
  // An incremental export of an organisation removed since: its removal is the answer (changes.ts).
  const removed = changedSince === undefined || !unknown.length ? new Set<string>() : await orgsChangedSince(store.read, unknown, changedSince);
  unknown = unknown.filter((id) => !removed.has(id));
  if (unknown.length) throw notFound('EXPORT-0rg404', `Errors.Org.NotFound: no organisation ${unknown.join(', ')} on this instance; nothing was exported`);
  return [...removed];
}

/** Runs an export: permission, request, then the outputs (GCS first, then the streamed body). */
export async function exportData(store: Store, ctx: RequestContext, raw: unknown, deps: ExportDeps = {}): Promise<ExportResult> {
  requirePermission(ctx, 'iam.read');
  const req = parseExportRequest(raw);
  const removedSince = await requireNamedOrgs(store, req.orgIds, req.changedSince || undefined);
  // A Go duration may be below a millisecond ("1ns"); the timer takes whole milliseconds only.
  const signal = AbortSignal.timeout(Math.ceil(req.timeoutMs));
  // An incremental export (changes.ts): the same document, written from reads narrowed to what changed.
  let read = store.read;
  let changes = '';
  if (req.changedSince !== undefined) {
    const exported = (await store.read.transfer.orgsToExport(req.orgIds, req.excludedOrgIds)).map((o) => o.id);
    const changed = await readChanges(
      store.read,
      req.orgIds || req.excludedOrgIds.length ? [...exported, ...removedSince] : undefined,
      req.changedSince,
      req.changedByOthers ? ctx.caller.userId : undefined,
    );
    read = narrowedReads(store.read, changed, exported);
    changes = changesPrefix(changed);
  }
  let gcsOutput: ExportResult['gcsOutput'];
  if (req.gcsOutput) {
    try {
      const { bytes } = await writeGcsObject(req.gcsOutput, exportDocument(read, req, signal, deps.secrets ?? processSecretBox(), changes, deps.onProgress), { ...deps.gcs, signal });
      gcsOutput = { bucket: req.gcsOutput.bucket, path: req.gcsOutput.path, bytes: String(bytes) };
    } catch (error) {
      if (signal.aborted) throw timedOut(req.timeoutMs);
      throw error;
    }
  }
  if (!req.responseOutput) return { gcsOutput, signal };
  const prefix = (gcsOutput ? `"gcsOutput":${JSON.stringify(gcsOutput)},` : '') + changes;
  return { gcsOutput, body: exportDocument(read, req, signal, deps.secrets ?? processSecretBox(), prefix, deps.onProgress), signal };
}
