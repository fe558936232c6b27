/** Import documents shared by the transfer tests. */
export const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';
export const TOTP = 'JBSWY3DPEHPK3PXP';

/** Two organisations with everything this service holds. */
export function richDocument(prefix = '1') {
  const org = (n: string) => ({
    orgId: `${prefix}${n}00`,
    org: { name: `Org ${prefix}-${n}` },
    orgState: 'ORG_STATE_ACTIVE',
    humanUsers: [
      {
        userId: `${prefix}${n}01`,
        user: {
          userName: `alice${n}`,
          profile: { firstName: 'Alice', lastName: 'Doe', displayName: 'Alice Doe', preferredLanguage: 'de', gender: 'GENDER_FEMALE' },
          email: { email: `alice${n}@example.com`, isEmailVerified: true },
          phone: { phone: '+41790000000', isPhoneVerified: true },
          hashedPassword: { value: BCRYPT },
          otpCode: TOTP,
        },
        state: 'USER_STATE_ACTIVE',
      },
    ],
    machineUsers: [{ userId: `${prefix}${n}02`, user: { userName: `svc${n}`, name: 'Service', description: 'a robot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' }, state: 'USER_STATE_ACTIVE' }],
    projects: [{ projectId: `${prefix}${n}03`, project: { name: 'App', projectRoleAssertion: true } }],
    projectRoles: [
      { projectId: `${prefix}${n}03`, roleKey: 'admin', displayName: 'Admin', group: 'g' },
      { projectId: `${prefix}${n}03`, roleKey: 'reader', displayName: 'Reader' },
    ],
    oidcApps: [
      {
        appId: `${prefix}${n}04`,
        app: {
          projectId: `${prefix}${n}03`,
          name: 'web',
          redirectUris: ['https://app.example.com/cb'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
          appType: 'OIDC_APP_TYPE_USER_AGENT',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
          devMode: true,
          clockSkew: '2s',
        },
      },
    ],
    userGrants: [{ userId: `${prefix}${n}01`, projectId: `${prefix}${n}03`, roleKeys: ['admin', 'reader'] }],
    orgMembers: [{ userId: `${prefix}${n}02`, roles: ['ORG_OWNER'] }],
    projectMembers: [{ projectId: `${prefix}${n}03`, userId: `${prefix}${n}01`, roles: ['PROJECT_OWNER'] }],
    jwtIdps: [
      {
        idpId: `${prefix}${n}05`,
        idp: {
          name: 'Corp JWT',
          jwtEndpoint: 'https://jwt.example.com/token',
          issuer: 'https://jwt.example.com',
          keysEndpoint: 'https://jwt.example.com/keys',
          headerName: 'x-jwt',
          autoRegister: true,
        },
      },
    ],
    loginTexts: [{ language: 'en', loginText: { title: 'Welcome' } }],
    initMessages: [{ language: 'en', title: 'Init', text: 'Code {{.Code}}' }],
    verifyEmailMessages: [{ language: 'de', subject: 'Bestätigen' }],
    verifyPhoneMessages: [{ language: 'en', text: 'Your code' }],
    verifySmsOtpMessages: [{ language: 'en', text: 'OTP {{.OTP}}' }],
    inviteUserMessages: [{ language: 'fr', title: 'Bienvenue' }],
  });
  return { orgs: [org('1'), org('2')] };
}
