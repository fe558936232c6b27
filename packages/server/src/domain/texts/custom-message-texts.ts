/**
 * Custom message texts (description §4.1): the instance's (the default for every organisation
 * without a text of its own) and an organisation's, whichever the scope names (text-scope.ts).
 * Writes follow ZITADEL's full-replacement semantics (reference §1.3 step 4): a field omitted from
 * the request is cleared.
 */

import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { invalidArgument, notFound } from '../errors.js';
import { parseLanguage } from '../languages.js';
import { templateProblem } from '../notifications/template.js';
import { builtInText, MESSAGE_TEXT_FIELDS, type MessageTextFields, type MessageType, withoutEmpty } from './message-text.js';
import { instanceTexts, orgTexts, type TextScope } from './text-scope.js';

export interface MessageTextView extends MessageTextFields {
  details: Partial<ObjectDetails>;
  isDefault: boolean;
}

/** Each field's template must render (template.ts): else 400 naming the field (`prefix`: where the text sits in the body). */
export function checkTemplates(fields: MessageTextFields, prefix = ''): void {
  for (const key of MESSAGE_TEXT_FIELDS) {
    const problem = fields[key] ? templateProblem(fields[key]!) : undefined;
    if (problem) throw invalidArgument('TEXT-t3mpl', `invalid ${prefix}${key}: ${problem}`);
  }
}

/** Sets the owner's text (the instance's, or an organisation's with `orgTexts`), the whole of it: fields left out are cleared. */
export async function setMessageText(
  store: Store,
  ctx: RequestContext,
  type: MessageType,
  languageInput: string,
  input: MessageTextFields,
  scope: TextScope = instanceTexts(ctx),
): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  const language = parseLanguage(languageInput);
  const next = withoutEmpty(input);
  checkTemplates(next);
  return store.transaction(async (tx) => {
    const current = await tx.messageTexts.get(scope.ownerId, type, language);
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
      const sequence = current?.sequence ?? (await lastSequence(tx, scope));
      return {
        details: {
          sequence: String(sequence),
          ...(current ? { changeDate: current.changedAt.toISOString() } : {}),
          resourceOwner: scope.ownerId,
        },
      };
    }
    // The event and the text's new state (its sequence and times from the event) in one call.
    const event = await tx.messageTexts.setWithEvent(
      {
        aggregateType: scope.aggregate,
        aggregateId: scope.ownerId,
        type: `${scope.aggregate}.customtext.set`,
        payload: { template: type, language, set, removed },
        creator: ctx.caller.userId,
        resourceOwner: scope.ownerId,
      },
      { ownerId: scope.ownerId, messageType: type, language, fields: next, createdAt: current?.createdAt },
    );
    return { details: changedDetails(event) };
  });
}

async function lastSequence(tx: Repositories, scope: TextScope): Promise<number> {
  const { events } = await tx.events.search({
    aggregateTypes: [scope.aggregate],
    aggregateId: scope.ownerId,
    limit: 1,
    offset: 0,
    asc: false,
  });
  return events[0]?.sequence ?? 0;
}

/**
 * The owner's text; where none is stored, what applies instead with `isDefault: true`: for the
 * instance the built-in text, for an organisation the instance's (or built-in) text.
 */
export async function getMessageText(store: Store, ctx: RequestContext, type: MessageType, languageInput: string, scope: TextScope = instanceTexts(ctx)): Promise<MessageTextView> {
  requirePermission(ctx, scope.read);
  const language = parseLanguage(languageInput);
  const row = await store.read.messageTexts.get(scope.ownerId, type, language);
  if (!row) return { ...(await fallbackText(store, ctx, type, language, scope)), isDefault: true, details: { resourceOwner: scope.ownerId } };
  return { ...withoutEmpty(row.fields), isDefault: false, details: viewDetails(row, scope.ownerId) };
}

async function fallbackText(store: Store, ctx: RequestContext, type: MessageType, language: ReturnType<typeof parseLanguage>, scope: TextScope): Promise<MessageTextFields> {
  const builtIn = builtInText(type, language);
  if (scope.aggregate === 'instance') return builtIn;
  const instance = await store.read.messageTexts.get(ctx.instanceId, type, language);
  return { ...builtIn, ...withoutEmpty(instance?.fields ?? {}) };
}

/** An organisation's default: the instance's text merged over the built-in one (what its users get without a text of their own). */
export async function getOrgDefaultMessageText(store: Store, ctx: RequestContext, type: MessageType, languageInput: string): Promise<MessageTextView> {
  const scope = orgTexts(ctx);
  requirePermission(ctx, scope.read);
  const language = parseLanguage(languageInput);
  return { ...(await fallbackText(store, ctx, type, language, scope)), isDefault: true, details: {} };
}

/** ZITADEL's built-in text, whatever the instance has stored. */
export function getDefaultMessageText(ctx: RequestContext, type: MessageType, languageInput: string): MessageTextView {
  requirePermission(ctx, 'iam.policy.read');
  const language = parseLanguage(languageInput);
  return { ...builtInText(type, language), isDefault: true, details: {} };
}

/** Removes the owner's text so the default applies again (the built-in one, or for an organisation the instance's); 404 when none is set. */
export async function resetMessageText(store: Store, ctx: RequestContext, type: MessageType, languageInput: string, scope: TextScope = instanceTexts(ctx)): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.delete);
  const language = parseLanguage(languageInput);
  return store.transaction(async (tx) => {
    const current = await tx.messageTexts.get(scope.ownerId, type, language);
    if (!current) throw notFound(scope.aggregate === 'org' ? 'ORG-fju90' : 'INSTANCE-fju90', 'Custom text not found');
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.customtext.template.removed`,
      payload: { template: type, language },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await tx.messageTexts.remove(scope.ownerId, type, language);
    return { details: changedDetails(event) };
  });
}
