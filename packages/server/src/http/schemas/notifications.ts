/**
 * Shapes of the SMTP providers, the outbox and users' email operations; each mirrors a schema of
 * openapi/components/schemas.
 */
import { z } from '@hono/zod-openapi';
import { Details, ListDetails, ListQuery } from './common.js';

export const Empty = z.object({}).openapi('Empty');
export const IdParam = z.object({ id: z.string() });

export const SMTPConfig = z
  .object({
    details: Details,
    id: z.string(),
    senderAddress: z.string(),
    senderName: z.string(),
    tls: z.boolean(),
    host: z.string(),
    user: z.string(),
    state: z.enum(['SMTP_CONFIG_STATE_UNSPECIFIED', 'SMTP_CONFIG_ACTIVE', 'SMTP_CONFIG_INACTIVE']),
    description: z.string(),
    replyToAddress: z.string(),
  })
  .openapi('SMTPConfig');
export const GetSMTPConfigResponse = z.object({ smtpConfig: SMTPConfig }).openapi('GetSMTPConfigResponse');

const smtpSettings = {
  senderAddress: z.string().min(1).max(200),
  senderName: z.string().min(1).max(200),
  tls: z.boolean().optional(),
  host: z.string().min(1).max(500),
  user: z.string().max(200).optional(),
  password: z.string().max(200).optional(),
};
export const AddSMTPConfigRequest = z
  .object({ ...smtpSettings, replyToAddress: z.string().max(200).optional(), description: z.string().max(200).optional() })
  .openapi('AddSMTPConfigRequest');
export const UpdateSMTPConfigRequest = z
  .object({ ...smtpSettings, replyToAddress: z.string().max(200).optional(), description: z.string().max(200).optional() })
  .openapi('UpdateSMTPConfigRequest');
export const AddSMTPConfigResponse = z.object({ details: Details, id: z.string() }).openapi('AddSMTPConfigResponse');
export const UpdateSMTPConfigPasswordRequest = z.object({ password: z.string().min(1).max(200) }).openapi('UpdateSMTPConfigPasswordRequest');
export const ListSMTPConfigsRequest = z.object({ query: ListQuery.optional() }).openapi('ListSMTPConfigsRequest');
export const ListSMTPConfigsResponse = z.object({ details: ListDetails, result: z.array(SMTPConfig) }).openapi('ListSMTPConfigsResponse');
export const TestSMTPConfigRequest = z
  .object({ ...smtpSettings, receiverAddress: z.string().min(1).max(200), id: z.string().max(200).optional() })
  .openapi('TestSMTPConfigRequest');
export const TestSMTPConfigByIdRequest = z.object({ receiverAddress: z.string().min(1).max(200) }).openapi('TestSMTPConfigByIdRequest');

const MessageKind = z.enum(['verify_email', 'init', 'password_reset']);
const Status = z.enum(['pending', 'sent', 'failed']);
export const Notification = z
  .object({
    id: z.string(),
    messageType: MessageKind,
    userId: z.string(),
    orgId: z.string(),
    recipient: z.string(),
    status: Status,
    attempts: z.number().int(),
    nextAttemptDate: z.string().optional(),
    lastError: z.string().optional(),
    deliveredVia: z.string().optional(),
    creationDate: z.string(),
    sentDate: z.string().optional(),
  })
  .openapi('Notification');
export const ListNotificationsRequest = z
  .object({ query: ListQuery.optional(), status: Status.optional(), userId: z.string().max(200).optional(), messageType: MessageKind.optional() })
  .openapi('ListNotificationsRequest');
export const ListNotificationsResponse = z
  .object({
    details: ListDetails,
    counts: z.object({ pending: z.number().int(), sent: z.number().int(), failed: z.number().int() }),
    result: z.array(Notification),
  })
  .openapi('ListNotificationsResponse');

export const UpdateHumanEmailRequest = z.object({ email: z.string().min(1).max(200), isEmailVerified: z.boolean().optional() }).openapi('UpdateHumanEmailRequest');
export const VerifyHumanEmailRequest = z.object({ verificationCode: z.string().min(1).max(20) }).openapi('VerifyHumanEmailRequest');
