/**
 * Changing who a user is (ZITADEL's v1 UpdateHumanProfile, UpdateHumanPhone, RemoveHumanPhone and
 * UpdateMachine). The whole profile is given, as in ZITADEL (a field left out is cleared, except the display name, which falls back to
 * "first last"); an update that changes nothing is refused as ZITADEL does (412 → 400 here).
 */

import type { UserRow } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userToChange } from './guard.js';
import type { AccessTokenType, Gender, HumanData, MachineData } from './view.js';

export interface ProfileInput {
  firstName: string;
  lastName: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: Gender;
}

export interface MachineInput {
  name: string;
  description?: string;
  accessTokenType?: AccessTokenType;
}

const same = (a: object, b: object) => JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

async function changeUser(
  store: Store,
  ctx: RequestContext,
  userId: string,
  type: 'human' | 'machine',
  change: (user: UserRow) => { data: Record<string, unknown>; event: string; payload: Record<string, unknown> } | undefined,
  unchanged: [id: string, message: string],
): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      // Who the user is counts as much as how it signs in: the profile reaches tokens and mails, so
      // every change needs authority over the user (guard.ts).
      const user = await userToChange(tx, ctx, userId, 'COMMAND-5M0od');
      // As ZITADEL: the human (or machine) aggregate of another kind of user does not exist.
      if (user.type !== type) throw notFound('COMMAND-5M0od', `User could not be found (not a ${type} user)`);
      const next = change(user);
      if (!next) throw failedPrecondition(...unchanged);
      const event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: next.event, payload: next.payload, creator: ctx.caller.userId, resourceOwner: user.orgId });
      await tx.users.change(user.id, { data: next.data }, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}

export function updateHumanProfile(store: Store, ctx: RequestContext, userId: string, input: ProfileInput) {
  return changeUser(
    store,
    ctx,
    userId,
    'human',
    (user) => {
      const data = user.data as unknown as HumanData;
      const profile: HumanData['profile'] = {
        firstName: input.firstName,
        lastName: input.lastName,
        ...(input.nickName ? { nickName: input.nickName } : {}),
        displayName: input.displayName || `${input.firstName} ${input.lastName}`,
        ...(input.preferredLanguage ? { preferredLanguage: input.preferredLanguage } : {}),
        ...(input.gender && input.gender !== 'GENDER_UNSPECIFIED' ? { gender: input.gender } : {}),
      };
      if (same(profile, data.profile)) return undefined;
      return { data: { ...data, profile } as unknown as Record<string, unknown>, event: 'user.human.profile.changed', payload: { ...profile } };
    },
    ['COMMAND-2M0fs', 'The profile has not been changed'],
  );
}

export function updateMachine(store: Store, ctx: RequestContext, userId: string, input: MachineInput) {
  return changeUser(
    store,
    ctx,
    userId,
    'machine',
    (user) => {
      const data = user.data as unknown as MachineData;
      const next: MachineData = {
        name: input.name,
        ...(input.description ? { description: input.description } : {}),
        accessTokenType: input.accessTokenType ?? data.accessTokenType,
      };
      if (same(next, data)) return undefined;
      return { data: next as unknown as Record<string, unknown>, event: 'user.machine.changed', payload: { ...next } };
    },
    ['COMMAND-2n8vs', 'The machine user has not been changed'],
  );
}

const PHONE = /^\+[0-9 ()-]{3,49}$/;

/**
 * ZITADEL's UpdateHumanPhone. This service sends no SMS: a number not marked verified stays
 * unverified (ZITADEL would text it a code) until it is updated with `isPhoneVerified`.
 */
export function updateHumanPhone(store: Store, ctx: RequestContext, userId: string, input: { phone: string; isPhoneVerified?: boolean }) {
  const phone = input.phone.trim();
  if (!PHONE.test(phone)) throw invalidArgument('PHONE-so0wa', 'invalid phone: a global number starting with + (digits, spaces, parentheses and hyphens)');
  return changeUser(
    store,
    ctx,
    userId,
    'human',
    (user) => {
      const data = user.data as unknown as HumanData;
      const next = { phone, ...(input.isPhoneVerified ? { isPhoneVerified: true } : {}) };
      if (data.phone && same(next, data.phone)) return undefined;
      return {
        data: { ...data, phone: next } as unknown as Record<string, unknown>,
        event: input.isPhoneVerified ? 'user.human.phone.verified' : 'user.human.phone.changed',
        payload: { phone, isPhoneVerified: Boolean(input.isPhoneVerified) },
      };
    },
    ['COMMAND-2b7Hf', 'The phone has not been changed'],
  );
}

/** ZITADEL's RemoveHumanPhone. */
export function removeHumanPhone(store: Store, ctx: RequestContext, userId: string) {
  return changeUser(
    store,
    ctx,
    userId,
    'human',
    (user) => {
      const { phone, ...rest } = user.data as unknown as HumanData;
      if (!phone) throw notFound('COMMAND-ieJ2e', 'The user has no phone');
      return { data: rest as unknown as Record<string, unknown>, event: 'user.human.phone.removed', payload: {} };
    },
    ['COMMAND-ieJ2e', 'The user has no phone'],
  );
}
