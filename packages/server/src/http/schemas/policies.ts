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
