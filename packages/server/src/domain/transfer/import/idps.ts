/**
 * The organisation's identity providers, JWT and OIDC. Ids are unique in the instance and names
 * (ignoring case) in the organisation, as for the API's AddOrgJWTIDP / AddOrgOIDCIDP; an OIDC
 * provider's row is built by the same function as there (oidcRowFields, domain/idps/commands.ts).
 */
import type { IdpRow } from '../../../store/repositories/idps.js';
import type { Repositories } from '../../../store/store.js';
import { oidcRowFields } from '../../idps/commands.js';
import type { DataOrg } from '../document.js';
import { importPart } from '../history.js';
import { importedState } from '../resource-states.js';
import { msg, type OrgImport } from './report.js';

export interface IdpImportInput {
  jwtIdps: NonNullable<DataOrg['jwtIdps']>;
  oidcIdps: NonNullable<DataOrg['oidcIdps']>;
  /** Seals an OIDC identity provider's client secret for the store (domain/idps/idp.ts). */
  sealIdpSecret: (clientSecret: string) => string;
  /** Whether a sealed client secret is `clientSecret` (sealing twice never gives the same text). */
  isIdpSecret: (sealed: string, clientSecret: string) => boolean;
}

export async function importIdps(tx: Repositories, input: IdpImportInput, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { jwtIdps, oidcIdps } = input;
  const takenIdps = await tx.transfer.existingIdpIds([...jwtIdps, ...oidcIdps].map((i) => i.idpId));
  const takenIdpNames = await tx.transfer.existingIdpNameKeys(orgId);
  const idpRows: Parameters<Repositories['transfer']['insertIdps']>[0] = [];
  /**
   * A provider whose id is taken: under OVERWRITE it takes the document's name, configuration and state
   * (a new name must be free in the organisation, as for UpdateOrgIDP); a client secret the
   * document leaves out stays as it is.
   */
  const existing = async (
    type: string,
    idpId: string,
    givenState: string | undefined,
    wanted: Omit<IdpRow, 'id' | 'ownerId' | 'ownerType' | 'state' | 'sequence' | 'createdAt' | 'changedAt'>,
    clientSecret?: string,
  ) => {
    const here = await tx.idps.get(idpId);
    // Another owner's provider, or one of another kind: refused under every policy.
    if ((!here || here.ownerId !== orgId || here.idpType !== wanted.idpType) && run.policy !== 'REPORT') {
      return run.clash(type, idpId, msg('V3-DKcYh', 'Errors.IDPConfig.AlreadyExists: the id is another identity provider here'));
    }
    if (!run.exists(type, idpId, msg('V3-DKcYh', 'Errors.IDPConfig.AlreadyExists')) || !here) return;
    if (here.nameKey !== wanted.nameKey && takenIdpNames.has(wanted.nameKey)) return run.clash(type, idpId, msg('V3-DKcYh', 'Errors.IDPConfig.AlreadyExists'));
    takenIdpNames.add(wanted.nameKey);
    const { oidcClientSecretSealed: sealed, ...fields } = wanted;
    const current = Object.fromEntries(Object.keys(fields).map((key) => [key, here[key as keyof IdpRow]]));
    const sameSecret = !clientSecret || (here.oidcClientSecretSealed !== null && input.isIdpSecret(here.oidcClientSecretSealed, clientSecret));
    await run.overwrite(tx, {
      type,
      id: idpId,
      aggregate: ['org', orgId],
      eventType: 'org.idp.config.changed',
      payload: { idpConfigId: idpId },
      current: { ...current, state: here.state, ...(sameSecret ? {} : { clientSecret: 'here' }) },
      wanted: { ...fields, state: importedState(givenState, 'IDP_STATE_INACTIVE'), ...(sameSecret ? {} : { clientSecret: 'document' }) },
      stateEvent: (to) => (to === 'IDP_STATE_INACTIVE' ? 'org.idp.config.deactivated' : 'org.idp.config.reactivated'),
      apply: ({ clientSecret: _, ...change }, at) => tx.idps.update(idpId, { ...change, ...(sameSecret ? {} : { oidcClientSecretSealed: sealed }), sequence: at.sequence, changedAt: at.changedAt }),
    });
  };
  /** The provider's id and name are free (then taken), else its error is reported. */
  const claimIdp = (type: string, idpId: string, name: string) => {
    const nameKey = name.toLowerCase();
    if (takenIdps.has(idpId) || takenIdpNames.has(nameKey)) {
      run.clash(type, idpId, msg('V3-DKcYh', 'Errors.IDPConfig.AlreadyExists'));
      return undefined;
    }
    takenIdps.add(idpId);
    takenIdpNames.add(nameKey);
    return nameKey;
  };
  // A provider of an organisation created here with its history (its events are the organisation's:
  // history.ts): the import's event for it, its row created when the source created it.
  const stampOf = (idpId: string) => importPart(tx, run, 'idp', { parentId: orgId, id: idpId, resourceOwner: orgId }, run.stamp);
  for (const i of jwtIdps) {
    const fields = {
      name: i.idp.name,
      nameKey: i.idp.name.toLowerCase(),
      stylingType: i.idp.stylingType ?? 'STYLING_TYPE_UNSPECIFIED',
      autoRegister: i.idp.autoRegister ?? false,
      jwtEndpoint: i.idp.jwtEndpoint,
      jwtIssuer: i.idp.issuer,
      jwtKeysEndpoint: i.idp.keysEndpoint,
      jwtHeaderName: i.idp.headerName,
      jwtAudience: i.idp.audience ?? '',
      idpType: 'IDP_TYPE_JWT',
      oidcConfig: null,
      oidcClientSecretSealed: null,
    };
    if (takenIdps.has(i.idpId)) {
      await existing('jwt_idp', i.idpId, i.state, fields);
      continue;
    }
    const nameKey = claimIdp('jwt_idp', i.idpId, i.idp.name);
    if (!nameKey) continue;
    idpRows.push({ id: i.idpId, ownerId: orgId, ownerType: 'IDP_OWNER_TYPE_ORG', state: importedState(i.state, 'IDP_STATE_INACTIVE'), ...fields, ...(await stampOf(i.idpId)) });
    run.imported('jwtIdps', i.idpId);
  }
  for (const i of oidcIdps) {
    const config = {
      clientId: i.idp.clientId,
      issuer: i.idp.issuer,
      scopes: [...new Set(i.idp.scopes ?? [])],
      displayNameMapping: i.idp.displayNameMapping ?? 'OIDC_MAPPING_FIELD_UNSPECIFIED',
      usernameMapping: i.idp.usernameMapping ?? 'OIDC_MAPPING_FIELD_UNSPECIFIED',
    };
    // Without a client secret (an export without `withPasswords`) the provider is kept but not
    // offered at the login until an administrator sets one (UpdateOrgIDPOIDCConfig).
    const sealed = i.idp.clientSecret ? input.sealIdpSecret(i.idp.clientSecret) : null;
    const fields = {
      name: i.idp.name,
      nameKey: i.idp.name.toLowerCase(),
      stylingType: i.idp.stylingType ?? 'STYLING_TYPE_UNSPECIFIED',
      autoRegister: i.idp.autoRegister ?? false,
      ...oidcRowFields(config, sealed),
    };
    if (takenIdps.has(i.idpId)) {
      await existing('oidc_idp', i.idpId, i.state, fields, i.idp.clientSecret || undefined);
      continue;
    }
    const nameKey = claimIdp('oidc_idp', i.idpId, i.idp.name);
    if (!nameKey) continue;
    idpRows.push({ id: i.idpId, ownerId: orgId, ownerType: 'IDP_OWNER_TYPE_ORG', state: importedState(i.state, 'IDP_STATE_INACTIVE'), ...fields, ...(await stampOf(i.idpId)) });
    run.imported('oidcIpds', i.idpId);
  }
  await tx.transfer.insertIdps(idpRows);
}
