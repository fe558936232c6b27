/**
 * Applications (import/apps.ts): API applications (ZITADEL's DataAPIApplication), then OIDC ones,
 * from one read. identityServiceClient is this service's extension (document.ts): the client's
 * credentials, its secret's hash only when the request asks for secrets (`withPasswords`).
 */
import type { Repositories } from '../../../store/store.js';
import type { ExportRequest } from '../request.js';
import { exportedState } from '../resource-states.js';
import { compact, protoCompact } from './compact.js';
import { listField, type OrgExport } from './section.js';

type AppRow = Awaited<ReturnType<Repositories['transfer']['appsOf']>>[number];

export async function* apps(o: OrgExport): AsyncGenerator<string> {
  const { req } = o;
  const allApps = await o.read.transfer.appsOf(o.org.id);
  const apiApps = allApps.filter((a) => a.appType === 'api');
  yield* listField(
    'apiApps',
    apiApps.map((a) => ({
      appId: a.id,
      app: protoCompact({ projectId: a.projectId, name: a.name, authMethodType: (a.config as { authMethodType?: string }).authMethodType }),
      identityServiceClient: client(a, req),
      ...exportedState(a.state),
    })),
  );
  const oidcApps = allApps.filter((a) => a.appType !== 'api');
  yield* listField(
    'oidcApps',
    oidcApps.map((a) => ({
      appId: a.id,
      app: compact({ projectId: a.projectId, name: a.name, ...oidcConfig(a.config) }),
      identityServiceClient: client(a, req),
      ...exportedState(a.state),
    })),
  );
}

const client = (a: AppRow, req: ExportRequest) => compact({ clientId: a.clientId, clientSecretHash: req.withPasswords ? (a.clientSecretHash ?? undefined) : undefined });

const OIDC_CONFIG_FIELDS = [
  'redirectUris',
  'responseTypes',
  'grantTypes',
  'appType',
  'authMethodType',
  'postLogoutRedirectUris',
  'version',
  'devMode',
  'accessTokenType',
  'accessTokenRoleAssertion',
  'idTokenRoleAssertion',
  'idTokenUserinfoAssertion',
  'clockSkew',
  'additionalOrigins',
  'skipNativeAppSuccessPage',
  'backChannelLogoutUri',
  'loginVersion',
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
