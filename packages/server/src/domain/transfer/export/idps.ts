/** Identity providers (import/idps.ts): OIDC ones, then JWT ones, from one read. */
import { isOidcIdp, OIDC_CLIENT_SECRET_PURPOSE, oidcConfigOf } from '../../idps/idp.js';
import { exportedState } from '../resource-states.js';
import { compact } from './compact.js';
import { listField, type OrgExport } from './section.js';

export async function* idps(o: OrgExport): AsyncGenerator<string> {
  const { req, secrets } = o;
  const allIdps = await o.read.transfer.idpsOf(o.org.id);
  // The client secret is a secret: it travels only when the caller asked for secrets
  // (`withPasswords`); without it the imported provider waits for one (import/idps.ts).
  yield* listField(
    'oidcIdps',
    allIdps.filter(isOidcIdp).map((d) => {
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
    }),
  );
  yield* listField(
    'jwtIdps',
    allIdps
      .filter((d) => !isOidcIdp(d))
      .map((d) => ({
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
      })),
  );
}
