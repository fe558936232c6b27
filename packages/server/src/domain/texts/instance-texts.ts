/**
 * The instance's custom message texts (description §4.1): the default for every organisation
 * without a text of its own. Writes follow ZITADEL's full-replacement semantics (reference
 * §1.3 step 4): a field omitted from the request is cleared.
 */
import { requirePermission, type RequestContext } from '../context.js';
import { changedDetails, viewDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import { parseLanguage } from '../languages.js';
import type { Repositories, Store } from '../../store/store.js';
import {
  builtInText,
  MESSAGE_TEXT_FIELDS,
  withoutEmpty,
  type MessageTextFields,
  type MessageType,
} from './message-text.js';

export interface MessageTextView extends MessageTextFields {
  details: Partial<ObjectDetails>;
  isDefault: boolean;
}

export const INSTANCE_AGGREGATE = 'instance';

export async function setInstanceMessageText(
  store: Store,
  ctx: RequestContext,
  type: MessageType,
  languageInput: string,
  input: MessageTextFields,
): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.policy.write');
  const language = parseLanguage(languageInput);
  const next = withoutEmpty(input);
  return store.transaction(async (tx) => {
    const current = await tx.messageTexts.get(ctx.instanceId, type, language);
    const previous = current?.fields ?? {};
    const set: MessageTextFields = {};
    const removed: string[] = [];
    for (const key of MESSAGE_TEXT_FIELDS) {
      if (next[key] === previous[key]) continue;
      if (next[key]) set[key] = next[key];
      else removed.push(key);
    }
    if (Object.keys(set).length === 0 && removed.length === 0) {
      // Nothing differs: no event, and the details of the state as it is (ZITADEL does the same).
      const sequence = current?.sequence ?? (await lastInstanceSequence(tx, ctx));
      return {
        details: {
          sequence: String(sequence),
          ...(current ? { changeDate: current.changedAt.toISOString() } : {}),
          resourceOwner: ctx.instanceId,
        },
      };
    }
    const event = await tx.events.append({
      aggregateType: INSTANCE_AGGREGATE,
      aggregateId: ctx.instanceId,
      type: 'instance.customtext.set',
      payload: { template: type, language, set, removed },
      creator: ctx.caller.userId,
      resourceOwner: ctx.instanceId,
    });
    await tx.messageTexts.upsert({
      ownerId: ctx.instanceId,
      messageType: type,
      language,
      fields: next,
      sequence: event.sequence,
      createdAt: current?.createdAt ?? event.createdAt,
      changedAt: event.createdAt,
    });
    return { details: changedDetails(event) };
  });
}

async function lastInstanceSequence(tx: Repositories, ctx: RequestContext): Promise<number> {
  const { events } = await tx.events.search({
    aggregateTypes: [INSTANCE_AGGREGATE],
    aggregateId: ctx.instanceId,
    limit: 1,
    offset: 0,
    asc: false,
  });
  return events[0]?.sequence ?? 0;
}

/** The instance's text; where none is stored, the built-in default with `isDefault: true`. */
export async function getInstanceMessageText(
  store: Store,
  ctx: RequestContext,
  type: MessageType,
  languageInput: string,
): Promise<MessageTextView> {
  requirePermission(ctx, 'iam.policy.read');
  const language = parseLanguage(languageInput);
  const row = await store.read.messageTexts.get(ctx.instanceId, type, language);
  if (!row) return { ...builtInText(type, language), isDefault: true, details: { resourceOwner: ctx.instanceId } };
  return { ...withoutEmpty(row.fields), isDefault: false, details: viewDetails(row, ctx.instanceId) };
}

/** ZITADEL's built-in text, whatever the instance has stored. */
export function getDefaultMessageText(ctx: RequestContext, type: MessageType, languageInput: string): MessageTextView {
  requirePermission(ctx, 'iam.policy.read');
  const language = parseLanguage(languageInput);
  return { ...builtInText(type, language), isDefault: true, details: {} };
}

/** Removes the instance's text so the built-in default applies again; 404 when none is set. */
export async function resetInstanceMessageText(
  store: Store,
  ctx: RequestContext,
  type: MessageType,
  languageInput: string,
): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'iam.policy.delete');
  const language = parseLanguage(languageInput);
  return store.transaction(async (tx) => {
    const current = await tx.messageTexts.get(ctx.instanceId, type, language);
    if (!current) throw notFound('INSTANCE-fju90', 'Custom text not found');
    const event = await tx.events.append({
      aggregateType: INSTANCE_AGGREGATE,
      aggregateId: ctx.instanceId,
      type: 'instance.customtext.template.removed',
      payload: { template: type, language },
      creator: ctx.caller.userId,
      resourceOwner: ctx.instanceId,
    });
    await tx.messageTexts.remove(ctx.instanceId, type, language);
    return { details: changedDetails(event) };
  });
}
