/**
 * The export/import document: ZITADEL's `{"orgs": [DataOrg…]}` (reference §4.3, Appendix A),
 * as zod schemas with ZITADEL's validation rules. Unknown fields are dropped, as ZITADEL's
 * gateway does. One schema per list element, so a large document is validated element by
 * element (validate.ts) and never held twice in memory.
 */
import { z } from 'zod';
import { HASH_COST_TOO_HIGH_ID, hashCostProblem, isSupportedPasswordHash, UNSUPPORTED_HASH } from '../users/hashed-password.js';
import { ENUMS } from './enums.js';
import { base64Bytes, bool, email, maxBytes, protoDuration, protoEnum, runes, str, strList, timestamp, uint32, uint64 } from './fields.js';
import { historySchema } from './history.js';

const id = runes(1, 200);

/**
 * This service's extension (issue 30): the state of a resource whose entry has no state field in
 * ZITADEL's document, beside the entry as ZITADEL's `DataHumanUser.state` is (ZITADEL's import
 * drops unknown fields, so such a resource arrives there active). Exported only when the resource
 * is not active; absent or UNSPECIFIED means active.
 */
const resourceState = <const T extends readonly [string, ...string[]]>(names: T) => protoEnum(names).optional();
const req = <T extends z.ZodType>(schema: T) => schema; // marks a field PGV requires (documentation only)

export const AddOrgRequest = z.object({ name: req(runes(1, 200)) });

export const DomainPolicy = z.object({
  orgId: runes(1, 200).optional(),
  userLoginMustBeDomain: bool,
  validateOrgDomains: bool,
  smtpSenderAddressMatchesInstanceDomain: bool,
});

const color = runes(0, 50).optional();
export const LabelPolicy = z.object({
  primaryColor: color,
  hideLoginNameSuffix: bool,
  warnColor: color,
  backgroundColor: color,
  fontColor: color,
  primaryColorDark: color,
  backgroundColorDark: color,
  warnColorDark: color,
  fontColorDark: color,
  disableWatermark: bool,
  themeMode: protoEnum(ENUMS.ThemeMode).optional(),
});

export const LockoutPolicy = z.object({ maxPasswordAttempts: uint32.optional(), maxOtpAttempts: uint32.optional() });

const LoginPolicyIdp = z.object({ idpId: id, ownerType: protoEnum(ENUMS.IDPOwnerType).refine((v) => v !== 'IDP_OWNER_TYPE_UNSPECIFIED', 'value must not be in list [0]') });
export const LoginPolicy = z.object({
  allowUsernamePassword: bool,
  allowRegister: bool,
  allowExternalIdp: bool,
  forceMfa: bool,
  passwordlessType: protoEnum(ENUMS.PasswordlessType).optional(),
  hidePasswordReset: bool,
  ignoreUnknownUsernames: bool,
  defaultRedirectUri: str,
  passwordCheckLifetime: protoDuration().optional(),
  externalLoginCheckLifetime: protoDuration().optional(),
  mfaInitSkipLifetime: protoDuration().optional(),
  secondFactorCheckLifetime: protoDuration().optional(),
  multiFactorCheckLifetime: protoDuration().optional(),
  secondFactors: z.array(protoEnum(ENUMS.SecondFactorType)).optional(),
  multiFactors: z.array(protoEnum(ENUMS.MultiFactorType)).optional(),
  idps: z.array(LoginPolicyIdp).optional(),
  allowDomainDiscovery: bool,
  disableLoginWithEmail: bool,
  disableLoginWithPhone: bool,
  forceMfaLocalOnly: bool,
});

export const PasswordComplexityPolicy = z.object({
  minLength: uint64.optional(),
  hasUppercase: bool,
  hasLowercase: bool,
  hasNumber: bool,
  hasSymbol: bool,
});

export const PrivacyPolicy = z.object({
  tosLink: str,
  privacyLink: str,
  helpLink: str,
  supportEmail: z.union([z.literal(''), email.pipe(runes(0, 320))]).optional(),
  docsLink: str,
  customLink: str,
  customLinkText: str,
});

export const DataProject = z.object({
  projectId: id,
  project: z.object({
    name: req(runes(1, 200)),
    projectRoleAssertion: bool,
    projectRoleCheck: bool,
    hasProjectCheck: bool,
    privateLabelingSetting: protoEnum(ENUMS.PrivateLabelingSetting).optional(),
  }),
  state: resourceState(ENUMS.ProjectState),
  /** This service's extension: the project's events at the source, its roles', apps', grants' and members' with them (`withHistory`, history.ts). */
  identityServiceHistory: historySchema('project').optional(),
});

export const ProjectRole = z.object({
  projectId: id,
  roleKey: req(runes(1, 200)),
  displayName: req(runes(1, 200)),
  group: runes(0, 200).optional(),
});

export const DataAPIApplication = z.object({
  appId: id,
  app: z.object({
    projectId: id,
    name: req(runes(1, 200)),
    authMethodType: protoEnum(ENUMS.APIAuthMethodType).optional(),
  }),
  // This service's extension, as for OIDC applications (below): the client's credentials.
  get identityServiceClient() {
    return IdentityServiceClient.optional();
  },
  state: resourceState(ENUMS.AppState),
});

export const OIDCApp = z.object({
  projectId: id,
  name: req(runes(1, 200)),
  redirectUris: strList,
  responseTypes: z.array(protoEnum(ENUMS.OIDCResponseType)).optional(),
  grantTypes: z.array(protoEnum(ENUMS.OIDCGrantType)).optional(),
  appType: protoEnum(ENUMS.OIDCAppType).optional(),
  authMethodType: protoEnum(ENUMS.OIDCAuthMethodType).optional(),
  postLogoutRedirectUris: strList,
  version: protoEnum(ENUMS.OIDCVersion).optional(),
  devMode: bool,
  accessTokenType: protoEnum(ENUMS.OIDCTokenType).optional(),
  accessTokenRoleAssertion: bool,
  idTokenRoleAssertion: bool,
  idTokenUserinfoAssertion: bool,
  clockSkew: protoDuration(5).optional(),
  additionalOrigins: strList,
  skipNativeAppSuccessPage: bool,
  backChannelLogoutUri: str,
  loginVersion: z.object({ loginV1: z.object({}).optional(), loginV2: z.object({ baseUri: str }).optional() }).optional(),
});
/** A bearer credential's SHA-256 in unpadded base64url, as this service stores (and exports) client secrets and tokens. */
const sha256Base64url = (what: string) => z.string().regex(/^[A-Za-z0-9_-]{43}$/, `must be the SHA-256 of the ${what} in unpadded base64url (43 characters), as this service exports it`);

/**
 * This service's extension of an exported OIDC application (not a ZITADEL field; ZITADEL's import
 * discards unknown fields): the client id, and with `with_passwords` the SHA-256 (base64url) of the
 * client secret, so a migration keeps every relying party's credentials working. Without it, an
 * import gives the app new credentials, as ZITADEL does.
 */
export const IdentityServiceClient = z.object({
  clientId: req(runes(1, 200)),
  clientSecretHash: sha256Base64url('client secret').optional(),
});
export const DataOIDCApplication = z.object({ appId: id, app: OIDCApp, identityServiceClient: IdentityServiceClient.optional(), state: resourceState(ENUMS.AppState) });

/**
 * This service's extensions for whole service accounts (with `withKeys`, beside the keys): a machine
 * user's personal access tokens and its client secret, as the hashes this service stores (the
 * tokens and secrets themselves are never stored, so never exported). Imported, the machine user
 * authenticates at the target with the source's token and secret. ZITADEL's import ignores both lists.
 */
export const DataPersonalAccessToken = z.object({
  tokenId: id,
  userId: id,
  expirationDate: timestamp.optional(),
  tokenHash: sha256Base64url('token'),
});
export const DataMachineSecret = z.object({
  userId: id,
  clientId: runes(1, 200),
  clientSecretHash: sha256Base64url('client secret'),
});

// An empty value means "no password" (import/users.ts); any other must be verifiable at login,
// within the cost bounds (auth/hash-cost.ts). The problem carries its id (ZITADEL's for the
// encoding), which validate.ts gives the 400 when it is the only kind.
const hashedPasswordValue = z
  .string()
  .superRefine((value, ctx) => {
    if (value === '') return;
    if (!isSupportedPasswordHash(value)) {
      ctx.addIssue({ code: 'custom', message: UNSUPPORTED_HASH.message, params: { errorId: UNSUPPORTED_HASH.id } });
      return;
    }
    const costly = hashCostProblem(value);
    if (costly) ctx.addIssue({ code: 'custom', message: costly, params: { errorId: HASH_COST_TOO_HIGH_ID } });
  })
  .optional();

export const HumanUser = z.object({
  userName: req(runes(1, 200)),
  profile: z.object({
    firstName: req(runes(1, 200)),
    lastName: req(runes(1, 200)),
    nickName: runes(0, 200).optional(),
    displayName: runes(0, 200).optional(),
    preferredLanguage: runes(0, 10).optional(),
    gender: protoEnum(ENUMS.Gender).optional(),
  }),
  email: z.object({ email: req(email), isEmailVerified: bool }),
  phone: z
    .object({
      phone: runes(1, 50).refine((p) => p.startsWith('+'), 'value does not have prefix "+"'),
      isPhoneVerified: bool,
    })
    .optional(),
  password: str,
  // `algorithm` (obsolete, still in ZITADEL's docs) is dropped like every unknown field.
  hashedPassword: z.object({ value: hashedPasswordValue }).optional(),
  passwordChangeRequired: bool,
  requestPasswordlessRegistration: bool,
  otpCode: str,
  idps: z.array(z.object({ configId: id, externalUserId: id, displayName: runes(0, 200).optional() })).optional(),
});
export const DataHumanUser = z.object({
  userId: id,
  user: HumanUser,
  state: protoEnum(ENUMS.UserState).optional(),
  /** This service's extension: the user's events at the source (ExportData's `withHistory`, history.ts). */
  identityServiceHistory: historySchema('user').optional(),
  /**
   * This service's extension, with `otpCode` (ExportData's `withOtp`): the time step of the last TOTP
   * code the source accepted, so that code cannot be used again at the target (domain/login/totp.ts).
   */
  identityServiceOtpLastStep: uint32.optional(),
});

export const MachineUser = z.object({
  userName: req(runes(1, 200)),
  name: req(runes(1, 200)),
  description: runes(0, 500).optional(),
  accessTokenType: protoEnum(ENUMS.AccessTokenType).optional(),
  userId: id.optional(),
});
export const DataMachineUser = z.object({
  userId: id,
  user: MachineUser,
  state: protoEnum(ENUMS.UserState).optional(),
  identityServiceHistory: historySchema('user').optional(),
});

export const TriggerAction = z.object({ flowType: str, triggerType: str, actionIds: strList });

export const DataAction = z.object({
  actionId: id,
  action: z.object({
    name: req(runes(1, 200)),
    script: req(z.string().min(1, 'value length must be at least 1 runes').pipe(maxBytes(40000))),
    timeout: protoDuration(20).optional(),
    allowedToFail: bool,
  }),
});

export const DataProjectGrant = z.object({
  grantId: id,
  projectGrant: z.object({ projectId: id, grantedOrgId: id, roleKeys: strList }),
  state: resourceState(ENUMS.ProjectGrantState),
});

export const UserGrant = z.object({
  userId: req(id),
  projectId: req(id),
  projectGrantId: runes(0, 200).optional(),
  roleKeys: strList,
  // ZITADEL's AddUserGrantRequest has no wrapper to put it beside: here it sits with the grant's fields.
  state: resourceState(ENUMS.UserGrantState),
  // This service's extension, likewise: the grant's id (ZITADEL's request has none; its import mints one).
  identityServiceGrantId: id.optional(),
  // And its events at the source (`withHistory`, history.ts).
  identityServiceHistory: historySchema('usergrant').optional(),
});

export const OrgMember = z.object({ userId: id, roles: strList });
export const ProjectMember = z.object({ projectId: id, userId: id, roles: strList });
export const ProjectGrantMember = z.object({ projectId: id, grantId: id, userId: req(id), roles: strList });

export const UserMetadata = z.object({ id, key: runes(1, 200), value: base64Bytes(1, 500000) });

/** The screens of SetCustomLoginTextsRequest; each screen is a set of short strings. */
export const LOGIN_TEXT_SCREENS = [
  'selectAccountText',
  'loginText',
  'passwordText',
  'usernameChangeText',
  'usernameChangeDoneText',
  'initPasswordText',
  'initPasswordDoneText',
  'emailVerificationText',
  'emailVerificationDoneText',
  'initializeUserText',
  'initializeDoneText',
  'initMfaPromptText',
  'initMfaOtpText',
  'initMfaU2fText',
  'initMfaDoneText',
  'mfaProvidersText',
  'verifyMfaOtpText',
  'verifyMfaU2fText',
  'passwordlessText',
  'passwordChangeText',
  'passwordChangeDoneText',
  'passwordResetDoneText',
  'registrationOptionText',
  'registrationUserText',
  'registrationOrgText',
  'linkingUserDoneText',
  'externalUserNotFoundText',
  'successLoginText',
  'logoutText',
  'footerText',
  'passwordlessPromptText',
  'passwordlessRegistrationText',
  'passwordlessRegistrationDoneText',
  'externalRegistrationUserOverviewText',
  'linkingUserPromptText',
] as const;
// Every screen field is limited to 100–500 runes in ZITADEL; 500 (the largest) is enforced here.
const Screen = z.record(z.string(), runes(0, 500));
export const LoginTexts = z.object({
  language: runes(1, 200),
  ...Object.fromEntries(LOGIN_TEXT_SCREENS.map((s) => [s, Screen.optional()])),
}) as z.ZodType<{ language: string } & Partial<Record<(typeof LOGIN_TEXT_SCREENS)[number], Record<string, string>>>>;

export const MessageText = z.object({
  language: runes(1, 200),
  title: maxBytes(2000).optional(),
  preHeader: maxBytes(2000).optional(),
  subject: maxBytes(2000).optional(),
  greeting: maxBytes(4000).optional(),
  text: maxBytes(40000).optional(),
  buttonText: maxBytes(4000).optional(),
  footerText: maxBytes(8000).optional(),
});
export const VerifyPhoneMessageText = MessageText.extend({ text: runes(0, 800).optional() });
export const VerifySmsOtpMessageText = z.object({ language: runes(1, 200), text: runes(0, 800).optional() });

export const DataOIDCIDP = z.object({
  idpId: id,
  idp: z.object({
    name: req(runes(1, 200)),
    stylingType: protoEnum(ENUMS.IDPStylingType).optional(),
    clientId: req(runes(1, 200)),
    // Required by ZITADEL; optional here, as this service exports it only with `withPasswords`.
    clientSecret: runes(1, 200).optional(),
    issuer: req(runes(1, 200)),
    scopes: strList,
    displayNameMapping: protoEnum(ENUMS.OIDCMappingField).optional(),
    usernameMapping: protoEnum(ENUMS.OIDCMappingField).optional(),
    autoRegister: bool,
  }),
  state: resourceState(ENUMS.IDPState),
});

export const DataJWTIDP = z.object({
  idpId: id,
  idp: z.object({
    name: req(runes(1, 200)),
    stylingType: protoEnum(ENUMS.IDPStylingType).optional(),
    jwtEndpoint: req(runes(1, 200)),
    issuer: req(runes(1, 200)),
    keysEndpoint: req(runes(1, 200)),
    headerName: req(runes(1, 200)),
    autoRegister: bool,
    // This service's (ZITADEL's document has none): what the provider's tokens' `aud` must contain.
    audience: runes(0, 200).optional(),
  }),
  state: resourceState(ENUMS.IDPState),
});

export const UserLink = z.object({
  userId: req(runes(1, 200)),
  idpId: req(runes(1, 200)),
  idpName: str,
  providedUserId: req(runes(1, 200)),
  providedUserName: str,
  idpType: protoEnum(ENUMS.IDPType).optional(),
});

export const OrgDomain = z.object({
  orgId: str,
  domainName: str,
  isVerified: bool,
  isPrimary: bool,
  validationType: protoEnum(ENUMS.DomainValidationType).optional(),
  // This service's extension: the domain the exporting instance generated from the organisation's
  // name (`<name>.<its instance domain>`); an import skips it, the target generating its own.
  identityServiceGenerated: bool,
});

export const DataAppKey = z.object({
  id: str,
  projectId: str,
  appId: str,
  clientId: str,
  type: protoEnum(ENUMS.KeyType).optional(),
  expirationDate: timestamp.optional(),
  publicKey: base64Bytes(0, Number.MAX_SAFE_INTEGER).optional(),
});

export const DataMachineKey = z.object({
  keyId: str,
  userId: str,
  type: protoEnum(ENUMS.KeyType).optional(),
  expirationDate: timestamp.optional(),
  publicKey: base64Bytes(0, Number.MAX_SAFE_INTEGER).optional(),
});

/** Single-valued fields of DataOrg (v2) and their schemas. */
export const ORG_SINGLE_FIELDS = {
  orgId: id,
  org: AddOrgRequest,
  domainPolicy: DomainPolicy,
  labelPolicy: LabelPolicy,
  lockoutPolicy: LockoutPolicy,
  loginPolicy: LoginPolicy,
  passwordComplexityPolicy: PasswordComplexityPolicy,
  privacyPolicy: PrivacyPolicy,
  orgState: protoEnum(ENUMS.OrgState),
  /** This service's extension: the organisation's own events at the source (`withHistory`, history.ts). */
  identityServiceOrgHistory: historySchema('org'),
} as const;

/** List fields of DataOrg (v2) and the schema of one element. */
export const ORG_LIST_FIELDS = {
  projects: DataProject,
  projectRoles: ProjectRole,
  apiApps: DataAPIApplication,
  oidcApps: DataOIDCApplication,
  humanUsers: DataHumanUser,
  machineUsers: DataMachineUser,
  triggerActions: TriggerAction,
  actions: DataAction,
  projectGrants: DataProjectGrant,
  userGrants: UserGrant,
  orgMembers: OrgMember,
  projectMembers: ProjectMember,
  projectGrantMembers: ProjectGrantMember,
  userMetadata: UserMetadata,
  loginTexts: LoginTexts,
  initMessages: MessageText,
  passwordResetMessages: MessageText,
  verifyEmailMessages: MessageText,
  verifyPhoneMessages: VerifyPhoneMessageText,
  domainClaimedMessages: MessageText,
  passwordlessRegistrationMessages: MessageText,
  oidcIdps: DataOIDCIDP,
  jwtIdps: DataJWTIDP,
  userLinks: UserLink,
  domains: OrgDomain,
  appKeys: DataAppKey,
  machineKeys: DataMachineKey,
  verifySmsOtpMessages: VerifySmsOtpMessageText,
  verifyEmailOtpMessages: MessageText,
  inviteUserMessages: MessageText,
  identityServicePersonalAccessTokens: DataPersonalAccessToken,
  identityServiceMachineSecrets: DataMachineSecret,
} as const;

type Out<T> = T extends z.ZodType ? z.output<T> : never;
export type DataOrg = { orgId?: string } & { -readonly [K in Exclude<keyof typeof ORG_SINGLE_FIELDS, 'orgId'>]?: Out<(typeof ORG_SINGLE_FIELDS)[K]> } & {
  -readonly [K in keyof typeof ORG_LIST_FIELDS]?: Out<(typeof ORG_LIST_FIELDS)[K]>[];
};
export interface DataOrgs {
  orgs: DataOrg[];
}

export type DataHumanUserT = z.output<typeof DataHumanUser>;
export type DataMachineUserT = z.output<typeof DataMachineUser>;
export type MessageTextT = z.output<typeof MessageText>;

/** The message-text lists of DataOrg and the template name each one stores (messages of ZITADEL's i18n). */
export const MESSAGE_TEXT_LISTS = {
  initMessages: 'InitCode',
  passwordResetMessages: 'PasswordReset',
  verifyEmailMessages: 'VerifyEmail',
  verifyPhoneMessages: 'VerifyPhone',
  domainClaimedMessages: 'DomainClaimed',
  passwordlessRegistrationMessages: 'PasswordlessRegistration',
  verifySmsOtpMessages: 'VerifySMSOTP',
  verifyEmailOtpMessages: 'VerifyEmailOTP',
  inviteUserMessages: 'InviteUser',
} as const;
