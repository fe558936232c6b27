import { z } from '@hono/zod-openapi';
import { ACCESS_TOKEN_TYPES, GENDERS, USER_STATES } from '../../domain/users/view.js';
import { Details, ListDetails, ListQuery, TextQueryMethod } from './common.js';

export const Gender = z.enum(GENDERS).openapi('Gender');
export const AccessTokenType = z.enum(ACCESS_TOKEN_TYPES).openapi('AccessTokenType');

/** A kept id on import (ZITADEL's optional userId). */
const KeptUserId = z.string().min(1).max(200).optional();
const UserName = z.string().min(1).max(200);

const HumanProfile = z.object({
  firstName: z.string().min(1).max(200),
  lastName: z.string().min(1).max(200),
  nickName: z.string().max(200).optional(),
  displayName: z.string().max(200).optional(),
  preferredLanguage: z.string().max(10).optional(),
  gender: Gender.optional(),
});
const HumanEmail = z.object({ email: z.email('value must be a valid email address').max(200), isEmailVerified: z.boolean().optional() });
const HumanPhone = z.object({
  phone: z.string().min(1).max(50).regex(/^\+/, 'value does not have prefix "+"'),
  isPhoneVerified: z.boolean().optional(),
});

export const AddHumanUserRequest = z
  .object({ userName: UserName, profile: HumanProfile, email: HumanEmail, phone: HumanPhone.optional(), initialPassword: z.string().max(200).optional() })
  .openapi('AddHumanUserRequest');
export const SetHumanPasswordRequest = z
  .object({ password: z.string().min(1).max(200), noChangeRequired: z.boolean().optional() })
  .openapi('SetHumanPasswordRequest');
export const SendHumanResetPasswordNotificationRequest = z
  .object({ type: z.enum(['NOTIFICATION_TYPE_Email', 'NOTIFICATION_TYPE_Sms']).optional() })
  .openapi('SendHumanResetPasswordNotificationRequest');
export const UpdateHumanPhoneRequest = HumanPhone.openapi('UpdateHumanPhoneRequest');
export const UpdateHumanProfileRequest = HumanProfile.openapi('UpdateHumanProfileRequest');
export const UpdateMachineRequest = z
  .object({ name: z.string().min(1).max(200), description: z.string().max(500).optional(), accessTokenType: AccessTokenType.optional() })
  .openapi('UpdateMachineRequest');

export const ImportHumanUserRequest = z
  .object({
    userId: KeptUserId,
    userName: UserName,
    profile: HumanProfile,
    email: HumanEmail,
    phone: HumanPhone.optional(),
    password: z.string().max(200).optional(),
    hashedPassword: z.object({ value: z.string().min(1).max(1000), algorithm: z.string().optional() }).optional(),
    passwordChangeRequired: z.boolean().optional(),
    otpCode: z.string().min(16).max(128).regex(/^[A-Za-z2-7]+=*$/, 'value must be a base32 secret').optional(),
  })
  .openapi('ImportHumanUserRequest');

export const AddMachineUserRequest = z
  .object({
    userId: KeptUserId,
    userName: UserName,
    name: z.string().min(1).max(200),
    description: z.string().max(500).optional(),
    accessTokenType: AccessTokenType.optional(),
  })
  .openapi('AddMachineUserRequest');

export const UserIdResponse = z.object({ userId: z.string(), details: Details }).openapi('UserIdResponse');

export const User = z
  .object({
    id: z.string(),
    details: Details,
    state: z.enum(USER_STATES),
    userName: z.string(),
    loginNames: z.array(z.string()),
    preferredLoginName: z.string(),
    human: z
      .object({
        profile: z.object({
          firstName: z.string(),
          lastName: z.string(),
          nickName: z.string().optional(),
          displayName: z.string(),
          preferredLanguage: z.string().optional(),
          gender: Gender.optional(),
        }),
        email: z.object({ email: z.string(), isEmailVerified: z.boolean().optional() }),
        phone: z.object({ phone: z.string(), isPhoneVerified: z.boolean().optional() }).optional(),
      })
      .optional(),
    machine: z
      .object({ name: z.string(), description: z.string().optional(), accessTokenType: AccessTokenType })
      .optional(),
  })
  .openapi('User');

export const UserResponse = z.object({ user: User });

export const ListUsersRequest = z
  .object({
    query: ListQuery.optional(),
    queries: z
      .array(
        z.object({
          userNameQuery: z.object({ userName: z.string().max(200), method: TextQueryMethod.optional() }).optional(),
          typeQuery: z.object({ type: z.enum(['TYPE_HUMAN', 'TYPE_MACHINE']) }).optional(),
        }),
      )
      .max(20)
      .optional(),
  })
  .openapi('ListUsersRequest');

export const ListUsersResponse = z.object({ details: ListDetails, result: z.array(User) }).openapi('ListUsersResponse');

export const UserIdParam = z.object({ userId: z.string() });
export const TokenIdParams = z.object({ userId: z.string(), tokenId: z.string() });

export const AddPersonalAccessTokenRequest = z
  .object({ expirationDate: z.iso.datetime({ offset: true, message: 'value must be an RFC 3339 date-time' }).optional() })
  .openapi('AddPersonalAccessTokenRequest');

export const AddPersonalAccessTokenResponse = z
  .object({ tokenId: z.string(), token: z.string(), details: Details })
  .openapi('AddPersonalAccessTokenResponse');

export const PersonalAccessToken = z
  .object({ id: z.string(), details: Details, expirationDate: z.string() })
  .openapi('PersonalAccessToken');

export const ListPersonalAccessTokensRequest = z.object({ query: ListQuery.optional() });

export const ListPersonalAccessTokensResponse = z
  .object({ details: ListDetails, result: z.array(PersonalAccessToken) })
  .openapi('ListPersonalAccessTokensResponse');

export const LinkedIdpParams = z.object({ userId: z.string(), idpId: z.string(), linkedUserId: z.string() });

export const IDPUserLink = z
  .object({
    userId: z.string(),
    idpId: z.string(),
    idpName: z.string(),
    providedUserId: z.string(),
    providedUserName: z.string(),
    idpType: z.enum(['IDP_TYPE_UNSPECIFIED', 'IDP_TYPE_OIDC', 'IDP_TYPE_JWT']),
  })
  .openapi('IDPUserLink');

export const ListHumanAuthFactorsRequest = z.object({}).openapi('ListHumanAuthFactorsRequest');
export const ListHumanAuthFactorsResponse = z
  .object({ result: z.array(z.object({ state: z.enum(['AUTH_FACTOR_STATE_READY']), otp: z.object({}) })) })
  .openapi('ListHumanAuthFactorsResponse');
export const ListHumanLinkedIDPsRequest = z.object({ query: ListQuery.optional() });

export const ListHumanLinkedIDPsResponse = z
  .object({ details: ListDetails, result: z.array(IDPUserLink) })
  .openapi('ListHumanLinkedIDPsResponse');

export const MetadataKeyParams = z.object({ userId: z.string(), key: z.string().min(1).max(200) });
export const Metadata = z.object({ details: Details, key: z.string(), value: z.string() }).openapi('Metadata');
export const GetUserMetadataResponse = z.object({ metadata: Metadata }).openapi('GetUserMetadataResponse');
export const ListUserMetadataRequest = z
  .object({
    query: ListQuery.optional(),
    queries: z.array(z.object({ keyQuery: z.object({ key: z.string().max(200), method: TextQueryMethod.optional() }).optional() })).optional(),
  })
  .openapi('ListUserMetadataRequest');
export const ListUserMetadataResponse = z.object({ details: ListDetails, result: z.array(Metadata) }).openapi('ListUserMetadataResponse');
export const SetUserMetadataRequest = z.object({ value: z.string().min(1) }).openapi('SetUserMetadataRequest');
export const BulkSetUserMetadataRequest = z
  .object({ metadata: z.array(z.object({ key: z.string().min(1).max(200), value: z.string().min(1) })).max(1000) })
  .openapi('BulkSetUserMetadataRequest');
export const BulkRemoveUserMetadataRequest = z.object({ keys: z.array(z.string().min(1).max(200)).max(1000) }).openapi('BulkRemoveUserMetadataRequest');
