/**
 * The `amr` claim of an ID token (RFC 8176), as ZITADEL writes it (`AuthMethodTypesToAMR` in its
 * `internal/api/oidc/amr.go`): `pwd` for a password, `otp` for an authenticator app's code, `user`
 * for a passkey or U2F (none here), and `mfa` once two of those were checked. A sign-in through an
 * identity provider adds nothing (ZITADEL's IdP method has no AMR value), so such a sign-in's token
 * carries no `amr`, and with an app's code after it only `otp`.
 *
 * What a sign-in checked is recorded in the authorization server's session in this service's own
 * words (`pwd`, `otp`, `mfa`, `fed`: domain/login/steps.ts), which the login policy's check
 * lifetimes and its forced second factor read (domain/login/check-lifetimes.ts, sign-in-standing.ts);
 * tokens get ZITADEL's values from them here, the one place they are translated.
 */

/** ZITADEL's values, in its order, for what the session says was checked. */
export function tokenAmr(checked: readonly unknown[]): string[] {
  const amr: string[] = [];
  if (checked.includes('pwd')) amr.push('pwd');
  if (checked.includes('otp')) amr.push('otp');
  if (amr.length >= 2) amr.push('mfa');
  return amr;
}
