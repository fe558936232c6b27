/**
 * ExportData (reference §4, description §4.4): the document `{"orgs":[DataOrg…]}` with
 * everything this service holds per organisation, produced as a stream of JSON text so memory
 * does not grow with the organisation: what there is of per user (users, user grants, metadata,
 * links) is read in keyset pages and written in chunks that die young (CHUNK_CHARS).
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
import { setImmediate } from 'node:timers/promises';
import { isOidcIdp, OIDC_CLIENT_SECRET_PURPOSE, oidcConfigOf } from '../idps/idp.js';
import { processSecretBox, type SecretBox } from '../../secrets/secret-box.js';
import { openOtpSecret } from '../users/otp-secret.js';
import { toLinkViews } from '../federation/links.js';
import { POLICY_KINDS } from '../policies/index.js';
import type { OnTransferProgress } from './progress.js';
import { requirePermission, type RequestContext } from '../context.js';
import { DomainError, GrpcCode, notFound } from '../errors.js';
import type { Repositories, Store } from '../../store/store.js';
import { writeGcsObject, type GcsOptions } from '../../storage/gcs.js';
import { MESSAGE_TEXT_LISTS } from './document.js';
import { ENUMS } from './enums.js';
import { exportedState } from './import-states.js';
import { orgPrimaryDomain } from '../orgs/domain.js';
import { parseExportRequest, type ExportRequest } from './request.js';
import { changesPrefix, narrowedReads, readChanges } from './changes.js';

const PAGE = 1000;

/**
 * About the most characters in one chunk of the document. V8 allocates a string over 128 KiB (64 Ki
 * characters of a two-byte string) in its large-object space, and a large object still alive at a
 * scavenge moves to the old generation at once, where only a full mark-compact frees it. A page
 * of 1,000 users as one ~340 KiB string was alive at most scavenges, so the old generation grew
 * by one page per scavenge, ~60 MiB over 1,000,000 users, before V8 collected it (issue 14).
 * Chunks of 32 Ki characters are ordinary young objects and die in the scavenge after their write.
 */
const CHUNK_CHARS = 32 * 1024;

/**
 * The rows' items as JSON separated by commas, `head` before the first, in chunks of about
 * CHUNK_CHARS characters; a row whose item is undefined is left out. Each item is made as it is
 * written, so it dies young rather than living as long as its page.
 */
function* jsonChunks<R>(head: string, rows: readonly R[], toItem: (row: R) => unknown): Generator<string, boolean> {
  let chunk = '';
  let any = false;
  for (const row of rows) {
    const item = toItem(row);
    if (item === undefined) continue;
    chunk += (any ? ',' : head) + JSON.stringify(item);
    any = true;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
  return any;
}

/**
 * A list field of the organisation read in keyset pages of PAGE rows (`readPage` is given the last
 * row read, none for the first page) and written page by page, so no more than a page is held
 * whatever the organisation's size. `itemsOf` reads what a page needs besides its rows and gives
 * the item of each row (undefined: none). The list is opened with its first item and left out
 * when empty, like every zero value.
 */
async function* pagedList<R>(
  field: string,
  readPage: (after: R | undefined) => Promise<R[]>,
  itemsOf: (page: R[]) => ((row: R) => unknown) | Promise<(row: R) => unknown>,
  checkDeadline: () => void,
): AsyncGenerator<string> {
  let opened = false;
  let after: R | undefined;
  for (;;) {
    // A turn of the event loop before each page. On SQLite (synchronous reads) an export would
    // otherwise run from its first page to its last in one task while the socket takes its
    // writes: no other request answered, and none of V8's GC tasks (starting incremental marking
    // at its soft limit, finalising it) run. A PostgreSQL read already waits for the network.
    await setImmediate();
    checkDeadline();
    const page = await readPage(after);
    if (page.length === 0) break;
    if (yield* jsonChunks(opened ? ',' : `,${JSON.stringify(field)}:[`, page, await itemsOf(page))) opened = true;
    after = page[page.length - 1];
    if (page.length < PAGE) break;
  }
  if (opened) yield ']';
}

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

/** Drops undefined, empty strings, false and empty lists, as protojson omits zero values. */
function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

/** Every enum's zero value (its first name), which protojson leaves out like other zero values. */
const ENUM_ZEROS = new Set<string>(Object.values(ENUMS).map((names) => names[0]));

/**
 * A policy's settings as protojson writes them: zero values (false, '', 0, empty lists, an enum's
 * zero) left out, so a document without them comes back without them.
 */
function protoCompact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(compact(obj)).filter(([, v]) => v !== 0 && !(typeof v === 'string' && ENUM_ZEROS.has(v))));
}

const MESSAGE_LIST_BY_TYPE = Object.fromEntries(Object.entries(MESSAGE_TEXT_LISTS).map(([list, type]) => [type, list]));

function checkDeadline(signal: AbortSignal, timeoutMs: number) {
  if (signal.aborted) throw new DomainError(GrpcCode.DeadlineExceeded, 'EXPORT-t1me0', `export timed out after ${timeoutMs / 1000}s`);
}

/** The document as JSON text, organisation by organisation. */
export async function* exportDocument(
  read: Repositories,
  req: ExportRequest,
  signal: AbortSignal,
  secrets: SecretBox,
  prefix = '',
  onProgress?: OnTransferProgress,
): AsyncGenerator<string> {
  const started = performance.now();
  const orgs = await read.transfer.orgsToExport(req.orgIds, req.excludedOrgIds);
  const orgIds = orgs.map((o) => o.id);
  const deadline = () => checkDeadline(signal, req.timeoutMs);
  const instanceDomain = (await read.instance.get())?.domain ?? 'localhost';
  yield `{${prefix}"orgs":[`;
  for (let i = 0; i < orgs.length; i++) {
    deadline();
    const org = orgs[i];
    yield `${i ? ',' : ''}{"orgId":${JSON.stringify(org.id)},"org":${JSON.stringify({ name: org.name })},"orgState":${JSON.stringify(org.state)}`;

    for (const type of ['human', 'machine'] as const) {
      yield* pagedList<UserRow>(`${type}Users`, (last) => read.transfer.usersPage(org.id, type, last?.id ?? '', PAGE), async (page) => {
        if (type === 'machine') return machineUser;
        const otp = req.withOtp ? await read.transfer.otpSecrets(page.map((u) => u.id)) : undefined;
        return (u) => humanUser(u, req, otp?.has(u.id) ? openOtpSecret(secrets, otp.get(u.id)!) : undefined);
      }, deadline);
    }

    // Every domain of the organisation, with its verification and primary flag (ZITADEL's org.v1.Domain, no details).
    // By name: an import stamps them alike, so creation order would not survive the trip.
    const domains = (await read.orgDomains.list(org.id)).sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
    if (domains.length) {
      // The domain this instance generated from the organisation's name is marked: it is this instance's, not the organisation's.
      const generated = orgPrimaryDomain(org.name, instanceDomain);
      yield `,"domains":${JSON.stringify(domains.map((d) => ({
        orgId: org.id, domainName: d.domain, isVerified: d.isVerified, isPrimary: d.isPrimary, validationType: d.validationType, ...(d.domain === generated ? { identityServiceGenerated: true } : {}),
      })))}`;
    }

    // The organisation's own policies (not the instance's, as ZITADEL).
    for (const kind of POLICY_KINDS) {
      const row = await read.policies.get(org.id, kind.kind);
      if (row) yield `,${JSON.stringify(kind.documentField)}:${JSON.stringify(protoCompact((kind.toDocument as (s: object) => Record<string, unknown>)(row.settings)))}`;
    }
    // userMetadata: ZITADEL's SetUserMetadataRequest (id = the user).
    yield* pagedList<MetadataRow>('userMetadata', (last) => read.userMetadata.pageByOrg(org.id, last, PAGE), () => (m) => ({ id: m.userId, key: m.key, value: m.value }), deadline);

    const projects = await read.transfer.projectsOf(org.id);
    if (projects.length) {
      yield `,"projects":${JSON.stringify(projects.map((p) => ({
        projectId: p.id,
        project: compact({
          name: p.name,
          projectRoleAssertion: p.projectRoleAssertion,
          projectRoleCheck: p.projectRoleCheck,
          hasProjectCheck: p.hasProjectCheck,
          privateLabelingSetting: p.privateLabelingSetting === 'PRIVATE_LABELING_SETTING_UNSPECIFIED' ? undefined : p.privateLabelingSetting,
        }),
        ...exportedState(p.state),
      })))}`;
    }
    const roles = await read.transfer.projectRolesOf(org.id);
    if (roles.length) {
      yield `,"projectRoles":${JSON.stringify(roles.map((r) => compact({ projectId: r.projectId, roleKey: r.roleKey, displayName: r.displayName, group: r.group })))}`;
    }
    const allApps = await read.transfer.oidcAppsOf(org.id);
    const apps = allApps.filter((a) => a.appType !== 'api');
    const apiApps = allApps.filter((a) => a.appType === 'api');
    if (apiApps.length) {
      // ZITADEL's DataAPIApplication, with the credentials as for OIDC applications.
      const client = (a: (typeof apiApps)[number]) => compact({ clientId: a.clientId, clientSecretHash: req.withPasswords ? (a.clientSecretHash ?? undefined) : undefined });
      yield `,"apiApps":${JSON.stringify(apiApps.map((a) => ({ appId: a.id, app: protoCompact({ projectId: a.projectId, name: a.name, authMethodType: (a.config as { authMethodType?: string }).authMethodType }), identityServiceClient: client(a), ...exportedState(a.state) })))}`;
    }
    if (apps.length) {
      // identityServiceClient: this service's extension (document.ts), the client's credentials.
      const client = (a: (typeof apps)[number]) => compact({ clientId: a.clientId, clientSecretHash: req.withPasswords ? (a.clientSecretHash ?? undefined) : undefined });
      yield `,"oidcApps":${JSON.stringify(apps.map((a) => ({ appId: a.id, app: compact({ projectId: a.projectId, name: a.name, ...oidcConfig(a.config) }), identityServiceClient: client(a), ...exportedState(a.state) })))}`;
    }

    if (req.withKeys) {
      // ZITADEL's DataMachineKey and DataAppKey: the public key as base64 of its PEM (ZITADEL's bytes).
      const pem = (publicKey: string) => Buffer.from(publicKey).toString('base64');
      const machineKeys = await read.transfer.machineKeysOf(org.id);
      if (machineKeys.length) {
        yield `,"machineKeys":${JSON.stringify(machineKeys.map((k) => ({ keyId: k.id, userId: k.userId, type: k.type, expirationDate: k.expiresAt.toISOString(), publicKey: pem(k.publicKey) })))}`;
      }
      const appKeys = await read.transfer.appKeysOf(org.id);
      if (appKeys.length) {
        yield `,"appKeys":${JSON.stringify(appKeys.map((k) => ({ id: k.id, projectId: k.projectId, appId: k.appId, clientId: k.clientId, type: k.type, expirationDate: k.expiresAt.toISOString(), publicKey: pem(k.publicKey) })))}`;
      }
      // This service's extensions: the rest of a service account's credentials, as the hashes stored here.
      const tokens = await read.transfer.tokensOf(org.id);
      if (tokens.length) {
        yield `,"identityServicePersonalAccessTokens":${JSON.stringify(tokens.map((t) => ({ tokenId: t.id, userId: t.userId, expirationDate: t.expiresAt.toISOString(), tokenHash: t.tokenHash })))}`;
      }
      const secrets = await read.transfer.machineSecretsOf(org.id);
      if (secrets.length) {
        yield `,"identityServiceMachineSecrets":${JSON.stringify(secrets.map((s) => ({ userId: s.userId, clientId: s.clientId, clientSecretHash: s.secretHash })))}`;
      }
    }

    // Project grants of this organisation's projects to exported organisations (as ZITADEL).
    const projectGrants = (await read.projectGrants.ownedBy(org.id)).filter((g) => orgIds.includes(g.grantedOrgId));
    if (projectGrants.length) {
      yield `,"projectGrants":${JSON.stringify(projectGrants.map((g) => ({ grantId: g.id, projectGrant: compact({ projectId: g.projectId, grantedOrgId: g.grantedOrgId, roleKeys: g.roleKeys }), ...exportedState(g.state) })))}`;
    }

    // Their members (users of exported organisations), under the project's organisation, as ZITADEL.
    const grantMembers = (await Promise.all(projectGrants.map(async (g) => (await read.transfer.projectGrantMembersOf(g.id, orgIds))
      .map(({ member }) => ({ projectId: g.projectId, grantId: g.id, userId: member.userId, roles: member.roles }))))).flat();
    if (grantMembers.length) yield `,"projectGrantMembers":${JSON.stringify(grantMembers)}`;

    yield* pagedList<GrantRow>('userGrants', (last) => read.transfer.userGrantsPage(org.id, orgIds, last?.grant.id ?? '', PAGE), async (page) => {
      // A user grant given through a project grant goes only with that grant (its project's organisation exported).
      const viaGrant = [...new Set(page.flatMap(({ grant: g }) => (g.projectGrantId ? [g.projectGrantId] : [])))];
      const exportedGrants = new Set((await Promise.all(viaGrant.map((id) => read.projectGrants.get(id)))).flatMap((g) => (g && orgIds.includes(g.orgId) ? [g.id] : [])));
      return ({ grant: g }) =>
        !g.projectGrantId || exportedGrants.has(g.projectGrantId)
          ? compact({ userId: g.userId, projectId: g.projectId, projectGrantId: g.projectGrantId ?? undefined, roleKeys: g.roleKeys, ...exportedState(g.state), identityServiceGrantId: g.id })
          : undefined;
    }, deadline);

    const orgMembers = await read.transfer.membersOf(org.id, 'org', orgIds);
    if (orgMembers.length) {
      yield `,"orgMembers":${JSON.stringify(orgMembers.map(({ member: m }) => compact({ userId: m.userId, roles: m.roles })))}`;
    }
    const projectMembers = await read.transfer.membersOf(org.id, 'project', orgIds);
    if (projectMembers.length) {
      yield `,"projectMembers":${JSON.stringify(projectMembers.map(({ member: m }) => compact({ projectId: m.scopeId, userId: m.userId, roles: m.roles })))}`;
    }
    const allIdps = await read.transfer.idpsOf(org.id);
    const oidcIdps = allIdps.filter(isOidcIdp);
    if (oidcIdps.length) {
      // The client secret is a secret: it travels only when the caller asked for secrets
      // (`withPasswords`); without it the imported provider waits for one (import/idps.ts).
      yield `,"oidcIdps":${JSON.stringify(oidcIdps.map((d) => {
        const config = oidcConfigOf(d);
        const clientSecret = req.withPasswords && d.oidcClientSecretSealed ? secrets.openText(d.oidcClientSecretSealed, OIDC_CLIENT_SECRET_PURPOSE) : undefined;
        return {
          idpId: d.id,
          idp: compact({
            name: d.name,
            stylingType: d.stylingType === 'STYLING_TYPE_UNSPECIFIED' ? undefined : d.stylingType,
            clientId: config.clientId,
            clientSecret,
            issuer: config.issuer,
            scopes: config.scopes.length ? config.scopes : undefined,
            displayNameMapping: config.displayNameMapping === 'OIDC_MAPPING_FIELD_UNSPECIFIED' ? undefined : config.displayNameMapping,
            usernameMapping: config.usernameMapping === 'OIDC_MAPPING_FIELD_UNSPECIFIED' ? undefined : config.usernameMapping,
            autoRegister: d.autoRegister,
          }),
          ...exportedState(d.state),
        };
      }))}`;
    }
    const idps = allIdps.filter((d) => !isOidcIdp(d));
    if (idps.length) {
      yield `,"jwtIdps":${JSON.stringify(idps.map((d) => ({
        idpId: d.id,
        idp: compact({
          name: d.name,
          stylingType: d.stylingType === 'STYLING_TYPE_UNSPECIFIED' ? undefined : d.stylingType,
          jwtEndpoint: d.jwtEndpoint,
          issuer: d.jwtIssuer,
          keysEndpoint: d.jwtKeysEndpoint,
          headerName: d.jwtHeaderName,
          autoRegister: d.autoRegister,
          // Written only when set: a ZITADEL document has no such field.
          audience: d.jwtAudience,
        }),
        ...exportedState(d.state),
      })))}`;
    }

    yield* pagedList<LinkRow>('userLinks', (last) => read.idpLinks.pageByOrg(org.id, last, PAGE), async (page) => {
      const views = await toLinkViews(read, page);
      const byRow = new Map(page.map((row, i) => [row, views[i]]));
      return (row) => byRow.get(row);
    }, deadline);

    const loginTexts = await read.transfer.loginTextsOf(org.id);
    if (loginTexts.length) yield `,"loginTexts":${JSON.stringify(loginTexts.map((l) => ({ language: l.language, ...l.screens })))}`;
    const texts = await read.transfer.messageTextsOf(org.id);
    const byList = new Map<string, unknown[]>();
    for (const text of texts) {
      const list = MESSAGE_LIST_BY_TYPE[text.messageType];
      if (!list) continue;
      if (!byList.has(list)) byList.set(list, []);
      byList.get(list)!.push({ language: text.language, ...compact(text.fields) });
    }
    for (const [list, items] of byList) yield `,${JSON.stringify(list)}:${JSON.stringify(items)}`;
    yield '}';
    onProgress?.({ step: 'export', orgId: org.id, done: i + 1, total: orgs.length, elapsedMs: Math.round(performance.now() - started) });
  }
  yield ']}';
}

type UserRow = Awaited<ReturnType<Repositories['transfer']['usersPage']>>[number];
type GrantRow = Awaited<ReturnType<Repositories['transfer']['userGrantsPage']>>[number];
type MetadataRow = Awaited<ReturnType<Repositories['userMetadata']['pageByOrg']>>[number];
type LinkRow = Awaited<ReturnType<Repositories['idpLinks']['pageByOrg']>>[number];

function humanUser(u: UserRow, req: ExportRequest, otp: string | undefined) {
  const data = u.data as { profile?: Record<string, unknown>; email?: Record<string, unknown>; phone?: Record<string, unknown> };
  return {
    userId: u.id,
    user: compact({
      userName: u.userName,
      profile: compact(data.profile ?? {}),
      email: compact(data.email ?? {}),
      phone: data.phone ? compact(data.phone) : undefined,
      hashedPassword: req.withPasswords && u.passwordHash ? { value: u.passwordHash } : undefined,
      passwordChangeRequired: req.withPasswords ? u.passwordChangeRequired : undefined,
      otpCode: req.withOtp ? otp : undefined,
    }),
    state: u.state,
  };
}

function machineUser(u: UserRow) {
  const data = u.data as { name?: string; description?: string; accessTokenType?: string };
  return {
    userId: u.id,
    user: compact({
      userName: u.userName,
      name: data.name,
      description: data.description,
      // Exported, unlike ZITADEL, so JWT machine users stay JWT machine users (reference §9).
      accessTokenType: data.accessTokenType === 'ACCESS_TOKEN_TYPE_BEARER' ? undefined : data.accessTokenType,
    }),
    state: u.state,
  };
}

const OIDC_CONFIG_FIELDS = [
  'redirectUris', 'responseTypes', 'grantTypes', 'appType', 'authMethodType', 'postLogoutRedirectUris', 'version',
  'devMode', 'accessTokenType', 'accessTokenRoleAssertion', 'idTokenRoleAssertion', 'idTokenUserinfoAssertion',
  'clockSkew', 'additionalOrigins', 'skipNativeAppSuccessPage', 'backChannelLogoutUri', 'loginVersion',
] as const;
/** Enum values that are the proto zero value and therefore omitted. */
const ZERO_ENUMS = new Set(['OIDC_APP_TYPE_WEB', 'OIDC_AUTH_METHOD_TYPE_BASIC', 'OIDC_VERSION_1_0', 'OIDC_TOKEN_TYPE_BEARER']);

function oidcConfig(config: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const key of OIDC_CONFIG_FIELDS) {
    const v = config[key];
    if (typeof v === 'string' && ZERO_ENUMS.has(v)) continue;
    if (key === 'clockSkew' && (v === '0s' || v === '0')) continue;
    out[key] = v;
  }
  return compact(out);
}

/**
 * Every organisation `orgIds` names must exist: ZITADEL answers an unknown one with an empty
 * document, so a typo in `--org` looked like a successful export of nothing (issue 30).
 */
async function requireNamedOrgs(store: Store, orgIds: string[] | undefined): Promise<void> {
  if (!orgIds?.length) return;
  const found = new Set((await store.read.transfer.orgsToExport(orgIds, [])).map((o) => o.id));
  const unknown = [...new Set(orgIds)].filter((id) => !found.has(id));
  if (unknown.length) throw notFound('EXPORT-0rg404', `Errors.Org.NotFound: no organisation ${unknown.join(', ')} on this instance; nothing was exported`);
}

/** Runs an export: permission, request, then the outputs (GCS first, then the streamed body). */
export async function exportData(store: Store, ctx: RequestContext, raw: unknown, deps: ExportDeps = {}): Promise<ExportResult> {
  requirePermission(ctx, 'iam.read');
  const req = parseExportRequest(raw);
  await requireNamedOrgs(store, req.orgIds);
  // A Go duration may be below a millisecond ("1ns"); the timer takes whole milliseconds only.
  const signal = AbortSignal.timeout(Math.ceil(req.timeoutMs));
  // An incremental export (changes.ts): the same document, written from reads narrowed to what changed.
  let read = store.read;
  let changes = '';
  if (req.changedSince !== undefined) {
    const exported = (await store.read.transfer.orgsToExport(req.orgIds, req.excludedOrgIds)).map((o) => o.id);
    const changed = await readChanges(store.read, req.orgIds || req.excludedOrgIds.length ? exported : undefined, req.changedSince, req.changedByOthers ? ctx.caller.userId : undefined);
    read = narrowedReads(store.read, changed, exported);
    changes = changesPrefix(changed);
  }
  let gcsOutput: ExportResult['gcsOutput'];
  if (req.gcsOutput) {
    try {
      const { bytes } = await writeGcsObject(req.gcsOutput, exportDocument(read, req, signal, deps.secrets ?? processSecretBox(), changes, deps.onProgress), { ...deps.gcs, signal });
      gcsOutput = { bucket: req.gcsOutput.bucket, path: req.gcsOutput.path, bytes: String(bytes) };
    } catch (error) {
      if (signal.aborted) throw new DomainError(GrpcCode.DeadlineExceeded, 'EXPORT-t1me0', `export timed out after ${req.timeoutMs / 1000}s`);
      throw error;
    }
  }
  if (!req.responseOutput) return { gcsOutput, signal };
  const prefix = (gcsOutput ? `"gcsOutput":${JSON.stringify(gcsOutput)},` : '') + changes;
  return { gcsOutput, body: exportDocument(read, req, signal, deps.secrets ?? processSecretBox(), prefix, deps.onProgress), signal };
}
