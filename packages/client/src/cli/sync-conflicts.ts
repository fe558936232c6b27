/**
 * Local changes at a sync's target (sync.ts): what the target's own trail says changed there since
 * the sync last wrote to it (its incremental export from the target's checkpoint), met with what
 * the source changed in the same round. A resource changed on both sides is a conflict; the policy
 * says which side wins: OVERWRITE the source, SKIP and REPORT the target (REPORT lists each one),
 * FAIL neither (the round is not applied). A resource changed only at the target is left as it is.
 *
 * Resources are met by id, one entry of the answers at a time (sync-document.ts): users (with their
 * metadata, links and credentials), user grants, and the organisation's other resources as one
 * (the incremental export answers them whole). A removal is met as a change of what it removed
 * (`unitOfRemoval`); the removal of an organisation meets any change the target made in it.
 */
import type { Entry } from './sync-document.js';

/** A removed resource: its kind and the ids its removal's path names (the export's `removed`). */
export type Removal = { kind: string } & Record<string, string>;

export interface OrgRemovals {
  orgId: string;
  /** The organisation itself was removed at its side. */
  orgRemoved?: boolean;
  resources: Removal[];
}

export interface Conflict {
  /** `org`: the source removed the organisation, which the target changed. */
  type: 'user' | 'user_grant' | 'org_resources' | 'org';
  id: string;
}

/** A user's lists besides the users themselves, and the field naming the user in each. */
const PER_USER_LISTS: Record<string, string> = {
  userMetadata: 'id',
  userLinks: 'userId',
  machineKeys: 'userId',
  identityServicePersonalAccessTokens: 'userId',
  identityServiceMachineSecrets: 'userId',
};
/** The organisation's own fields that are not its resources (its id, name and state). */
const NOT_RESOURCES = new Set(['orgId', 'org', 'orgState']);

/** Kinds of removal that are a user's own (the user is their conflict's unit). */
const USER_KINDS = new Set(['user', 'user_metadata', 'machine_key', 'personal_access_token', 'machine_secret', 'otp', 'idp_link']);

/** What an organisation's field or list item is met by: a user, a user grant, the organisation's resources, or nothing. */
export function unitOfEntry(e: Entry & { at: 'field' | 'item' }): Conflict | undefined {
  const item = (e.value ?? {}) as Record<string, unknown>;
  if (e.field === 'humanUsers' || e.field === 'machineUsers') return { type: 'user', id: String(item.userId) };
  if (e.field === 'userGrants') return typeof item.identityServiceGrantId === 'string' ? { type: 'user_grant', id: item.identityServiceGrantId } : undefined;
  const userField = PER_USER_LISTS[e.field];
  if (userField) return { type: 'user', id: String(item[userField]) };
  return NOT_RESOURCES.has(e.field) ? undefined : { type: 'org_resources', id: e.orgId };
}

/** What a removal is met by, as `unitOfEntry`. */
export function unitOfRemoval(r: Removal, orgId: string): Conflict {
  if (USER_KINDS.has(r.kind)) return { type: 'user', id: r.userId ?? '' };
  if (r.kind === 'user_grant') return { type: 'user_grant', id: r.grantId ?? '' };
  return { type: 'org_resources', id: orgId };
}

const keyOf = (c: Conflict) => `${c.type} ${c.id}`;

/** What one side changed, by unit: the target's local changes, against which the source's are met. */
export class Touched {
  private readonly units = new Set<string>();
  /** Organisations with any change. */
  private readonly orgs = new Set<string>();

  entry(e: Entry): void {
    if (e.at === 'root') {
      if (e.key === 'removed') for (const r of e.value as OrgRemovals[]) this.removals(r);
      return;
    }
    this.orgs.add(e.orgId);
    const unit = unitOfEntry(e);
    if (unit) this.units.add(keyOf(unit));
  }

  private removals(r: OrgRemovals): void {
    this.orgs.add(r.orgId);
    for (const resource of r.resources) this.units.add(keyOf(unitOfRemoval(resource, r.orgId)));
  }

  /** Whether a unit the source changed was changed here too (the source's removal of an organisation: anything in it). */
  has(c: Conflict): boolean {
    return c.type === 'org' ? this.orgs.has(c.id) : this.units.has(keyOf(c));
  }
}

/** The conflicts found so far in a round, in the order met, each once. */
export class Conflicts {
  private readonly found = new Map<string, Conflict>();

  constructor(private readonly local: Touched | undefined) {}

  /** Notes `unit` if the target changed it too. */
  meet(unit: Conflict | undefined): void {
    if (unit && this.local?.has(unit)) this.found.set(keyOf(unit), unit);
  }

  get list(): Conflict[] {
    return [...this.found.values()];
  }

  /** Whether `unit` is one of them (what the policy then keeps of the target's). */
  has(unit: Conflict | undefined): boolean {
    return unit !== undefined && this.found.has(keyOf(unit));
  }
}
