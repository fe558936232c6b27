/** Shapes of the policies' operations; each mirrors a schema of openapi/components/schemas. */
import { z } from '@hono/zod-openapi';
import { Details } from './common.js';

export const PasswordComplexityPolicy = z
  .object({
    details: Details,
    minLength: z.string(),
    hasUppercase: z.boolean(),
    hasLowercase: z.boolean(),
    hasNumber: z.boolean(),
    hasSymbol: z.boolean(),
    isDefault: z.boolean(),
  })
  .openapi('PasswordComplexityPolicy');
export const PasswordComplexityPolicyResponse = z.object({ policy: PasswordComplexityPolicy }).openapi('PasswordComplexityPolicyResponse');
export const PasswordComplexityPolicyRequest = z
  .object({
    minLength: z.union([z.number().int().min(1).max(72), z.string().regex(/^[0-9]{1,3}$/)]),
    hasUppercase: z.boolean().optional(),
    hasLowercase: z.boolean().optional(),
    hasNumber: z.boolean().optional(),
    hasSymbol: z.boolean().optional(),
  })
  .openapi('PasswordComplexityPolicyRequest');

const attempts = z.union([z.number().int().min(0).max(1000), z.string().regex(/^[0-9]{1,4}$/)]);
export const LockoutPolicy = z
  .object({ details: Details, maxPasswordAttempts: z.string(), maxOtpAttempts: z.string(), isDefault: z.boolean() })
  .openapi('LockoutPolicy');
export const LockoutPolicyResponse = z.object({ policy: LockoutPolicy }).openapi('LockoutPolicyResponse');
export const LockoutPolicyRequest = z
  .object({ maxPasswordAttempts: attempts.optional(), maxOtpAttempts: attempts.optional() })
  .openapi('LockoutPolicyRequest');

// The other kinds take exactly what the organisation document accepts for them (domain/transfer/document.ts).
export { DomainPolicy as DomainPolicyRequest, LabelPolicy as LabelPolicyRequest, LoginPolicy as LoginPolicyRequest, PrivacyPolicy as PrivacyPolicyRequest } from '../../domain/transfer/document.js';

const view = <T extends z.ZodRawShape>(name: string, shape: T) => {
  const policy = z.object({ details: Details, ...shape, isDefault: z.boolean() }).openapi(name);
  return z.object({ policy }).openapi(`${name}Response`);
};
const link = z.string();
export const PrivacyPolicyResponse = view('PrivacyPolicy', {
  tosLink: link, privacyLink: link, helpLink: link, supportEmail: link, docsLink: link, customLink: link, customLinkText: link,
});
const colour = z.string();
export const LabelPolicyResponse = view('LabelPolicy', {
  primaryColor: colour, warnColor: colour, backgroundColor: colour, fontColor: colour,
  primaryColorDark: colour, backgroundColorDark: colour, warnColorDark: colour, fontColorDark: colour,
  hideLoginNameSuffix: z.boolean(), disableWatermark: z.boolean(), themeMode: z.string(),
});
export const DomainPolicyResponse = view('DomainPolicy', {
  userLoginMustBeDomain: z.boolean(), validateOrgDomains: z.boolean(), smtpSenderAddressMatchesInstanceDomain: z.boolean(),
});
export const LoginPolicyResponse = view('LoginPolicy', {
  allowUsernamePassword: z.boolean(), allowRegister: z.boolean(), allowExternalIdp: z.boolean(), forceMfa: z.boolean(), forceMfaLocalOnly: z.boolean(),
  passwordlessType: z.string(), hidePasswordReset: z.boolean(), ignoreUnknownUsernames: z.boolean(), allowDomainDiscovery: z.boolean(),
  disableLoginWithEmail: z.boolean(), disableLoginWithPhone: z.boolean(), defaultRedirectUri: z.string(),
  passwordCheckLifetime: z.string(), externalLoginCheckLifetime: z.string(), mfaInitSkipLifetime: z.string(), secondFactorCheckLifetime: z.string(), multiFactorCheckLifetime: z.string(),
  secondFactors: z.array(z.string()), multiFactors: z.array(z.string()), idps: z.array(z.object({ idpId: z.string(), ownerType: z.string() })),
});
