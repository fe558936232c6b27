/**
 * The signed-in user's own second factors (ZITADEL's auth API): openapi/paths/auth/user-auth-factors.yaml.
 * Every operation acts on the caller itself.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { confirmOtpEnrolment, listOwnAuthFactors, removeOwnOtp, startOtpEnrolment } from '../../domain/users/otp-enrolment.js';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export function registerAuthUserAuthFactorRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { store, secrets } = deps;
  const route = routesOf(app, deps);
  // The issuer an authenticator app shows beside the account: this service's public host, as ZITADEL shows its domain.
  const issuerName = new URL(deps.mail.externalUrl).host;

  route('ListMyAuthFactors', async (c) => c.json(await listOwnAuthFactors(store, c.get('ctx').caller.userId), 200));

  route('AddMyAuthFactorOTP', async (c) => c.json(await startOtpEnrolment(store, secrets, { instanceId: c.get('ctx').instanceId, userId: c.get('ctx').caller.userId, issuerName }), 200));

  route('VerifyMyAuthFactorOTP', async (c) => c.json(await confirmOtpEnrolment(store, secrets, c.get('ctx').caller.userId, c.req.valid('json').code), 200));

  route('RemoveMyAuthFactorOTP', async (c) => c.json(await removeOwnOtp(store, c.get('ctx').caller.userId), 200));
}
