/**
 * What every policy kind shares (ZITADEL's policies): the instance's default (admin API: get,
 * update) and an organisation's own policy (management API: get the effective one, get the
 * default, add, update, reset to the default), one row per owner and kind in `policies`, an event
 * per change (`instance.policy.<name>.changed`, `org.policy.<name>.added|changed|removed`). A kind
 * says how its settings are read from a request, compared and shown.
 */

import type { z } from 'zod';
import type { PolicyRow } from '../../store/repositories/policies.js';
import type { AggregateLock, Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';

export interface PolicyKind<T extends object, Input, S extends object> {
  /** The row's kind, e.g. `password_complexity`. */
  kind: string;
  /** The event name's middle part, e.g. `password.complexity`. */
  eventName: string;
  /** In messages: "password complexity policy". */
  label: string;
  /** The instance's default until it is changed (ZITADEL's built-in one). */
  builtIn: T;
  /** The request's settings, validated (throws a 400 naming the field). */
  parse(input: Input): T;
  /** The settings as the API shows them (ZITADEL's field types). */
  show(settings: T): S;
  /** Who may add, change or reset an organisation's own policy (default `policy.write` / `policy.delete`). */
  orgWritePermission?: string;
  /** The organisation document's field (export/import) and the settings as it carries them. */
  documentField: string;
  importType: string;
  toDocument(settings: T): Record<string, unknown>;
  /**
   * Checks what the change implies, inside its transaction after it is written (e.g. the domain
   * policy: no two users may then share a login name); a throw undoes the change.
   */
  afterChange?(tx: Repositories, instanceId: string): Promise<void>;
  /** Locks a change takes beside its owner's, for what `afterChange` checks across owners. */
  locks?(instanceId: string): AggregateLock[];
}

/**
 * Settings checked by the organisation document's schema of the kind (domain/transfer/document.ts):
 * the API and an import accept exactly the same values. The first problem → 400 naming the field.
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw invalidArgument('POLICY-1nv4l', `invalid ${issue.path.join('.') || 'policy'}: ${issue.message}`);
}

export type PolicyView<S> = S & { details: Partial<ObjectDetails>; isDefault: boolean };

const sameSettings = (a: object, b: object) => JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

/** What reading a kind's settings needs of it: its row kind and its built-in default. */
type StoredKind<T extends object> = Pick<PolicyKind<T, never, object>, 'kind' | 'builtIn'>;

/** The settings a row holds, the built-in ones filling what it lacks; undefined without a row. */
const storedSettings = <T extends object>(k: StoredKind<T>, row: PolicyRow | undefined) => (row ? ({ ...k.builtIn, ...(row.settings as T) } as T) : undefined);

async function instancePolicyOf<T extends object>(k: StoredKind<T>, read: Repositories, instanceId: string) {
  const row = await read.policies.get(instanceId, k.kind);
  return { policy: storedSettings(k, row) ?? k.builtIn, row };
}

/**
 * The policy of kind `k` that applies to users of `orgId`: its own, else the instance's. A function
 * of the kind alone, so a module the kind's change hooks call (users/login-names.ts for the domain
 * policy) reads it without importing those operations back.
 */
export async function effectivePolicy<T extends object>(k: StoredKind<T>, read: Repositories, instanceId: string, orgId: string): Promise<T> {
  return storedSettings(k, await read.policies.firstOf(orgId, instanceId, k.kind)) ?? k.builtIn;
}

export function policyOperations<T extends object, Input, S extends object>(k: PolicyKind<T, Input, S>) {
  const settingsOf = (row: PolicyRow | undefined) => storedSettings(k, row);
  const instancePolicy = (read: Repositories, instanceId: string) => instancePolicyOf(k, read, instanceId);
  const view = (policy: T, isDefault: boolean, details: Partial<ObjectDetails>): PolicyView<S> => ({ details, ...k.show(policy), isDefault });

  /**
   * An owner's policy set to `next` (the instance's default or an organisation's own): its event,
   * its row (created when `row` is undefined), then what the kind checks after a change.
   */
  async function writePolicy(tx: Repositories, ctx: RequestContext, owner: { aggregateType: 'instance' | 'org'; ownerId: string; row: PolicyRow | undefined; change: 'added' | 'changed' }, next: T) {
    const event = await tx.events.append({
      aggregateType: owner.aggregateType,
      aggregateId: owner.ownerId,
      type: `${owner.aggregateType}.policy.${k.eventName}.${owner.change}`,
      payload: { ...next } as Record<string, unknown>,
      creator: ctx.caller.userId,
      resourceOwner: owner.ownerId,
    });
    await tx.policies.upsert({
      ownerId: owner.ownerId,
      kind: k.kind,
      settings: { ...next } as Record<string, unknown>,
      sequence: event.sequence,
      createdAt: owner.row?.createdAt ?? event.createdAt,
      changedAt: event.createdAt,
    });
    await k.afterChange?.(tx, ctx.instanceId);
    return event;
  }

  async function getDefault(store: Store, ctx: RequestContext, permission = 'iam.policy.read'): Promise<{ policy: PolicyView<S> }> {
    requirePermission(ctx, permission);
    const { policy, row } = await instancePolicy(store.read, ctx.instanceId);
    return { policy: view(policy, true, row ? viewDetails(row, ctx.instanceId) : { resourceOwner: ctx.instanceId }) };
  }

  async function updateDefault(store: Store, ctx: RequestContext, input: Input): Promise<{ details: ObjectDetails }> {
    requirePermission(ctx, 'iam.policy.write');
    const next = k.parse(input);
    return store.transaction(
      async (tx) => {
        const { policy, row } = await instancePolicy(tx, ctx.instanceId);
        if (sameSettings(policy, next)) throw failedPrecondition('INSTANCE-Dee31', `The ${k.label} has not been changed`);
        const event = await writePolicy(tx, ctx, { aggregateType: 'instance', ownerId: ctx.instanceId, row, change: 'changed' }, next);
        return { details: changedDetails(event) };
      },
      [['instance', ctx.instanceId], ...(k.locks?.(ctx.instanceId) ?? [])],
    );
  }

  async function getOrg(store: Store, ctx: RequestContext): Promise<{ policy: PolicyView<S> }> {
    requirePermission(ctx, 'policy.read');
    const row = await store.read.policies.get(ctx.orgId, k.kind);
    if (row) return { policy: view(settingsOf(row)!, false, viewDetails(row, ctx.orgId)) };
    return getDefault(store, ctx, 'policy.read');
  }

  async function writeOrg(store: Store, ctx: RequestContext, input: Input, mode: 'add' | 'update'): Promise<{ details: ObjectDetails }> {
    requirePermission(ctx, k.orgWritePermission ?? 'policy.write');
    const next = k.parse(input);
    return store.transaction(
      async (tx) => {
        const row = await tx.policies.get(ctx.orgId, k.kind);
        if (mode === 'add' && row) throw alreadyExists('Org-1T8k0s', `The organisation has a ${k.label} already; update it`);
        if (mode === 'update' && !row) throw notFound('ORG-0oPew', `The organisation has no ${k.label} of its own; add one`);
        if (row && sameSettings(settingsOf(row)!, next)) throw failedPrecondition('Org-DAs21', `The ${k.label} has not been changed`);
        const event = await writePolicy(tx, ctx, { aggregateType: 'org', ownerId: ctx.orgId, row, change: mode === 'add' ? 'added' : 'changed' }, next);
        return { details: mode === 'add' ? addedDetails(event) : changedDetails(event) };
      },
      [['org', ctx.orgId], ...(k.locks?.(ctx.instanceId) ?? [])],
    );
  }

  async function resetOrg(store: Store, ctx: RequestContext): Promise<{ details: ObjectDetails }> {
    requirePermission(ctx, k.orgWritePermission ?? 'policy.delete');
    return store.transaction(
      async (tx) => {
        if (!(await tx.policies.get(ctx.orgId, k.kind))) throw notFound('ORG-0oPew', `The organisation has no ${k.label} of its own`);
        const event = await tx.events.append({
          aggregateType: 'org',
          aggregateId: ctx.orgId,
          type: `org.policy.${k.eventName}.removed`,
          payload: {},
          creator: ctx.caller.userId,
          resourceOwner: ctx.orgId,
        });
        await tx.policies.remove(ctx.orgId, k.kind);
        await k.afterChange?.(tx, ctx.instanceId);
        return { details: changedDetails(event) };
      },
      [['org', ctx.orgId], ...(k.locks?.(ctx.instanceId) ?? [])],
    );
  }

  return {
    kind: k,
    /** The policy that applies to users of `orgId`: its own, else the instance's. */
    effective: (read: Repositories, instanceId: string, orgId: string): Promise<T> => effectivePolicy(k, read, instanceId, orgId),
    getDefault,
    updateDefault,
    getOrg,
    addOrg: (store: Store, ctx: RequestContext, input: Input) => writeOrg(store, ctx, input, 'add'),
    updateOrg: (store: Store, ctx: RequestContext, input: Input) => writeOrg(store, ctx, input, 'update'),
    resetOrg,
  };
}
