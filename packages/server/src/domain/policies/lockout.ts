/**
 * The lockout policy (ZITADEL's): after `maxPasswordAttempts` consecutive failed password checks at
 * the login page the user is locked (0 = never), with the effective policy of the user's
 * organisation (domain/login/password-login.ts). `maxOtpAttempts` is stored, shown, exported and
 * imported; this service asks for no second factor yet, so it counts nothing. Until the instance's
 * default is changed it is ZITADEL's built-in one (no lockout), or what LOCKOUT_MAX_PASSWORD_ATTEMPTS
 * set on the first start that had it (seedLockoutDefault).
 */
import type { Store } from '../../store/store.js';
import { invalidArgument } from '../errors.js';
import { policyOperations } from './policy.js';

export const LOCKOUT = 'lockout';
const MAX_ATTEMPTS = 1000;

export interface Lockout {
  maxPasswordAttempts: number;
  maxOtpAttempts: number;
}

export interface LockoutInput {
  maxPasswordAttempts?: number | string;
  maxOtpAttempts?: number | string;
}

function count(value: number | string | undefined, field: string): number {
  const n = value === undefined ? 0 : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_ATTEMPTS) throw invalidArgument('POLICY-4ttmp', `invalid ${field}: must be a whole number from 0 (no lockout) to ${MAX_ATTEMPTS}`);
  return n;
}

export const lockout = policyOperations({
  kind: LOCKOUT,
  eventName: 'lockout',
  label: 'lockout policy',
  builtIn: { maxPasswordAttempts: 0, maxOtpAttempts: 0 } as Lockout,
  parse: (input: LockoutInput): Lockout => ({ maxPasswordAttempts: count(input.maxPasswordAttempts, 'maxPasswordAttempts'), maxOtpAttempts: count(input.maxOtpAttempts, 'maxOtpAttempts') }),
  // uint64 in ZITADEL's JSON: strings.
  show: (p: Lockout) => ({ maxPasswordAttempts: String(p.maxPasswordAttempts), maxOtpAttempts: String(p.maxOtpAttempts) }),
  documentField: 'lockoutPolicy',
  importType: 'lockout_policy',
  // uint32 in ZITADEL's export document: numbers.
  toDocument: (p: Lockout) => ({ maxPasswordAttempts: p.maxPasswordAttempts, maxOtpAttempts: p.maxOtpAttempts }),
});

/**
 * LOCKOUT_MAX_PASSWORD_ATTEMPTS is the instance default's initial value: written once, when the
 * instance has no lockout policy yet (an event records it); afterwards the API owns the policy.
 */
export async function seedLockoutDefault(store: Store, instanceId: string, maxPasswordAttempts: number): Promise<void> {
  if (maxPasswordAttempts <= 0) return;
  await store.transaction(
    async (tx) => {
      if (await tx.policies.get(instanceId, LOCKOUT)) return;
      const settings = { maxPasswordAttempts, maxOtpAttempts: 0 };
      const event = await tx.events.append({
        aggregateType: 'instance',
        aggregateId: instanceId,
        type: 'instance.policy.lockout.changed',
        payload: { ...settings, from: 'LOCKOUT_MAX_PASSWORD_ATTEMPTS' },
        creator: 'SYSTEM',
        resourceOwner: instanceId,
      });
      await tx.policies.upsert({ ownerId: instanceId, kind: LOCKOUT, settings, sequence: event.sequence, createdAt: event.createdAt, changedAt: event.createdAt });
    },
    [['instance', instanceId]],
  );
}
