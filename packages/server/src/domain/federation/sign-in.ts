/**
 * Signing in through an identity provider, after its token was validated (jwt-token.ts): the
 * identity (provider, subject) signs in as the user linked to it; without a link, a provider with
 * `autoRegister` creates a human user in the sign-in's organisation with the link, and any other
 * provider asks the person to link the identity to an existing account (ZITADEL's "external user
 * not found" page), which `linkIdentity` does after a password check. Every sign-in, registration
 * and link is an event on the user.
 *
 * Locks (ARCHITECTURE.md, "Locks before checks"): the identity, so two first sign-ins of one
 * identity cannot register two users, and the linked user, so a sign-in serialises with the
 * user's removal.
 */

import type { IdpRow } from '../../store/repositories/idps.js';
import type { Repositories, Store } from '../../store/store.js';
import { newId } from '../ids.js';
import { SUPPORTED_LANGUAGES } from '../languages.js';
import { login } from '../policies/login.js';
import { isUnstorableText } from '../unstorable-text.js';
import { USER_AGGREGATE } from '../users/aggregate.js';
import { insertNewUser } from '../users/commands.js';
import { bareLoginNameTaken, loginNamesLock } from '../users/login-names.js';
import { mayAuthenticate } from '../users/may-authenticate.js';
import type { HumanData } from '../users/view.js';
import type { ExternalIdentity, Outcome } from './browser-state.js';

/** Lock key of one external identity (not an event aggregate: events go to the user). */
export const IDENTITY_LOCK = 'idp.identity';
const identityKey = (idpId: string, externalUserId: string) => `${idpId}:${externalUserId}`;

/** A sign-in that cannot go on; `message` is for the person at the login page. */
export class SignInRefused extends Error {}

/** Longest claim value taken over (the API's own limit for names). */
const CLAIM_MAX = 200;
const PROFILE_CLAIMS = ['email', 'given_name', 'family_name', 'name', 'preferred_username', 'locale', 'nickname'] as const;

/**
 * The identity of a validated token: subject, a user name, and the profile claims we use. An OIDC
 * provider's mappings may name the claim for the user name and for the display name.
 */
export function identityFromClaims(idpId: string, payload: Record<string, unknown>, mapped: { userName?: string; displayName?: string } = {}): ExternalIdentity {
  const claims: Record<string, string | boolean> = {};
  for (const name of PROFILE_CLAIMS) {
    const value = payload[name];
    if (typeof value === 'string' && value.trim() && value.length <= CLAIM_MAX && !isUnstorableText(value)) claims[name] = value.trim();
  }
  if (payload.email_verified === true || payload.email_verified === 'true') claims.email_verified = true;
  const sub = String(payload.sub);
  if (sub.length > CLAIM_MAX || isUnstorableText(sub)) throw new SignInRefused('The token\u2019s subject ("sub") is too long or holds characters that cannot be stored.');
  const usable = (value: string | undefined) => (value && value.length <= CLAIM_MAX && !isUnstorableText(value) ? value : undefined);
  const name = usable(mapped.userName) ?? claims.preferred_username ?? claims.email ?? sub;
  const displayName = usable(mapped.displayName);
  return { idpId, externalUserId: sub, externalUserName: String(name), ...(displayName ? { displayName } : {}), claims };
}

/**
 * Active providers a sign-in for `orgId` offers: the organisation's own and the instance's.
 * `policyOf`: the login policies the caller has read already (the login page reads one for more).
 */
export async function providersFor(store: Store, orgId: string, instanceId: string, policyOf = (id: string) => login.effective(store.read, instanceId, id)): Promise<IdpRow[]> {
  // The login policy of the organisation decides whether providers are offered, and which.
  const policy = await policyOf(orgId);
  if (!policy.allowExternalIdp) return [];
  const listed = new Set(policy.idps.map((i) => i.idpId));
  const rows = await store.read.idps.ofEitherOwner(orgId, instanceId);
  // An OIDC provider imported without its client secret cannot sign anybody in until one is set.
  const usable = (row: IdpRow) => row.idpType !== 'IDP_TYPE_OIDC' || row.oidcClientSecretSealed !== null;
  return rows.filter((row) => row.state === 'IDP_STATE_ACTIVE' && usable(row) && (listed.size === 0 || listed.has(row.id)));
}

function refuseUnusable(user: { state: string } | undefined): asserts user {
  if (!user) throw new SignInRefused('The account linked to this identity no longer exists. Ask an administrator.');
  if (user.state === 'USER_STATE_LOCKED') throw new SignInRefused('The account linked to this identity is locked. Ask an administrator to unlock it.');
  if (!mayAuthenticate(user.state)) throw new SignInRefused('The account linked to this identity is not active.');
}

async function recordSignIn(tx: Repositories, userId: string, orgId: string, idpId: string, externalUserId: string) {
  const event = await tx.events.append({
    aggregateType: USER_AGGREGATE,
    aggregateId: userId,
    type: 'user.human.externallogin.check.succeeded',
    payload: { idpConfigId: idpId, userId: externalUserId },
    creator: userId,
    resourceOwner: orgId,
  });
  await tx.users.touch(userId, event.sequence, event.createdAt);
}

async function addLink(tx: Repositories, userId: string, orgId: string, identity: ExternalIdentity, at?: Date) {
  const event = await tx.events.append(
    {
      aggregateType: USER_AGGREGATE,
      aggregateId: userId,
      type: 'user.human.externalidp.added',
      payload: { idpConfigId: identity.idpId, userId: identity.externalUserId, displayName: identity.displayName ?? identity.externalUserName },
      creator: userId,
      resourceOwner: orgId,
    },
    at,
  );
  await tx.idpLinks.insert({
    idpId: identity.idpId,
    externalUserId: identity.externalUserId,
    userId,
    orgId,
    externalUserName: identity.displayName ?? identity.externalUserName,
    createdAt: event.createdAt,
  });
}

/**
 * The identity signs in: as its linked user, as a user registered now (`autoRegister`), or not
 * yet (the outcome asks for linking). `orgId` is the sign-in's organisation (new users go there).
 */
export async function signInWithIdentity(store: Store, instanceId: string, idp: IdpRow, orgId: string, identity: ExternalIdentity): Promise<Outcome> {
  const lockIdentity: [string, string] = [IDENTITY_LOCK, identityKey(identity.idpId, identity.externalUserId)];
  const known = await store.read.idpLinks.get(identity.idpId, identity.externalUserId);
  if (known) {
    return store.transaction(
      async (tx) => {
        const link = await tx.idpLinks.get(identity.idpId, identity.externalUserId);
        // Removed (with its user, or by an administrator) since the read above.
        if (!link || link.userId !== known.userId) throw new SignInRefused('This identity\u2019s link changed while signing in. Please try again.');
        const user = await tx.users.get(link.userId);
        refuseUnusable(user);
        await recordSignIn(tx, user.id, user.orgId, idp.id, identity.externalUserId);
        return { kind: 'signed-in', userId: user.id } as const;
      },
      [lockIdentity, [USER_AGGREGATE, known.userId]],
    );
  }
  if (!idp.autoRegister) return { kind: 'link', identity, reason: 'no-auto-register' };

  const email = identity.claims.email;
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new SignInRefused('A new account needs an email address, and the provider\u2019s token carries none ("email" claim). Ask the provider\u2019s administrator to add it.');
  }
  const userName = identity.externalUserName;
  const userId = newId();
  return store.transaction(
    async (tx) => {
      // A first sign-in of the same identity in another tab may have registered it meanwhile.
      const link = await tx.idpLinks.get(identity.idpId, identity.externalUserId);
      if (link) throw new SignInRefused('This identity was registered by another sign-in a moment ago. Please try again.');
      const nameKey = userName.toLowerCase();
      if ((await tx.users.getByUserNameKey(orgId, nameKey)) || (await bareLoginNameTaken(tx, instanceId, orgId, nameKey))) {
        return { kind: 'link', identity, reason: 'user-name-taken' } as const;
      }
      const data = humanDataFrom(identity, email, userName);
      await insertNewUser(
        tx,
        { instanceId, orgId, creator: userId },
        {
          userId,
          userName,
          type: 'human',
          // Signs in through the provider: nothing is left to initialise.
          state: 'USER_STATE_ACTIVE',
          data,
          passwordHash: null,
          passwordChangeRequired: false,
          eventType: 'user.human.added',
          payload: { userName, ...data, passwordSet: false, registeredWithIdp: idp.id },
        },
      );
      await addLink(tx, userId, orgId, identity);
      await recordSignIn(tx, userId, orgId, idp.id, identity.externalUserId);
      return { kind: 'signed-in', userId } as const;
    },
    [lockIdentity, [USER_AGGREGATE, userId], loginNamesLock(instanceId)],
  );
}

function humanDataFrom(identity: ExternalIdentity, email: string, userName: string): HumanData {
  const c = identity.claims;
  const [first, ...rest] = typeof c.name === 'string' ? c.name.split(/\s+/) : [];
  const firstName = String(c.given_name ?? first ?? userName);
  const lastName = String(c.family_name ?? (rest.length ? rest.join(' ') : userName));
  const locale = typeof c.locale === 'string' ? c.locale.toLowerCase().split(/[-_]/)[0] : undefined;
  return {
    profile: {
      firstName,
      lastName,
      ...(typeof c.nickname === 'string' ? { nickName: c.nickname } : {}),
      displayName: identity.displayName ?? (typeof c.name === 'string' ? c.name : `${firstName} ${lastName}`),
      ...(locale && (SUPPORTED_LANGUAGES as readonly string[]).includes(locale) ? { preferredLanguage: locale } : {}),
    },
    email: { email, ...(c.email_verified === true ? { isEmailVerified: true } : {}) },
  };
}

/**
 * Links the identity to `userId` (who just proved a password at the link page) and records the
 * sign-in. The provider must be the instance's or the user's organisation's.
 */
export async function linkIdentity(store: Store, idp: IdpRow, identity: ExternalIdentity, userId: string): Promise<void> {
  await store.transaction(
    async (tx) => {
      const user = await tx.users.get(userId);
      refuseUnusable(user);
      if (user.type !== 'human') throw new SignInRefused('Only people\u2019s accounts can be linked.');
      if (idp.ownerType === 'IDP_OWNER_TYPE_ORG' && idp.ownerId !== user.orgId) {
        throw new SignInRefused('This provider belongs to another organisation than this account, so it cannot be linked to it.');
      }
      const link = await tx.idpLinks.get(identity.idpId, identity.externalUserId);
      if (link && link.userId !== user.id) throw new SignInRefused('This identity is already linked to another account.');
      if (!link) await addLink(tx, user.id, user.orgId, identity);
      await recordSignIn(tx, user.id, user.orgId, idp.id, identity.externalUserId);
    },
    [
      [IDENTITY_LOCK, identityKey(identity.idpId, identity.externalUserId)],
      [USER_AGGREGATE, userId],
    ],
  );
}
