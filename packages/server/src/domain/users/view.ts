/**
 * How a stored user reads (ZITADEL's user.v1.User). `data` holds the type-specific part:
 * humans `{profile, email, phone?}`, machines `{name, description?, accessTokenType}`.
 */

import type { UserRow } from '../../store/repositories/users.js';
import { type ObjectDetails, viewDetails } from '../details.js';
import { type LoginNameRules, loginNamesOf } from './login-names.js';

export const USER_STATES = ['USER_STATE_UNSPECIFIED', 'USER_STATE_ACTIVE', 'USER_STATE_INACTIVE', 'USER_STATE_DELETED', 'USER_STATE_LOCKED', 'USER_STATE_SUSPEND', 'USER_STATE_INITIAL'] as const;
export type UserState = (typeof USER_STATES)[number];
export const GENDERS = ['GENDER_UNSPECIFIED', 'GENDER_FEMALE', 'GENDER_MALE', 'GENDER_DIVERSE'] as const;
export type Gender = (typeof GENDERS)[number];
export const ACCESS_TOKEN_TYPES = ['ACCESS_TOKEN_TYPE_BEARER', 'ACCESS_TOKEN_TYPE_JWT'] as const;
export type AccessTokenType = (typeof ACCESS_TOKEN_TYPES)[number];

export interface HumanData {
  profile: { firstName: string; lastName: string; nickName?: string; displayName: string; preferredLanguage?: string; gender?: Gender };
  email: { email: string; isEmailVerified?: boolean };
  phone?: { phone: string; isPhoneVerified?: boolean };
}

export interface MachineData {
  name: string;
  description?: string;
  accessTokenType: AccessTokenType;
}

export interface UserView {
  id: string;
  details: ObjectDetails;
  state: UserState;
  userName: string;
  loginNames: string[];
  preferredLoginName: string;
  human?: HumanData;
  machine?: MachineData;
}

/** The user's login names come from its organisation's rules (login-names.ts). */
export function toUserView(row: UserRow, rules: LoginNameRules): UserView {
  const names = loginNamesOf(row.userName, rules);
  return {
    id: row.id,
    details: viewDetails(row, row.orgId),
    state: row.state as UserState,
    userName: row.userName,
    loginNames: names.loginNames,
    preferredLoginName: names.preferredLoginName,
    ...(row.type === 'human' ? { human: row.data as unknown as HumanData } : { machine: machineData(row.data) }),
  };
}

/** Machine data as stored; users written before accessTokenType was recorded read as bearer. */
function machineData(data: Record<string, unknown>): MachineData {
  const m = data as Partial<MachineData>;
  return {
    name: m.name ?? '',
    ...(m.description ? { description: m.description } : {}),
    accessTokenType: m.accessTokenType ?? 'ACCESS_TOKEN_TYPE_BEARER',
  };
}
