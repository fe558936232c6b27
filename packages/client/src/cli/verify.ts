/**
 * identity-transfer verify: whether two instances hold the same organisations, resource by resource.
 *
 * Both instances are asked for the same export (POST /admin/v1/export, the same options), and the two
 * documents are read as streams, side by side (the side that has given fewer resources next): each resource (an
 * organisation, a user, a grant, a policy, …) is reduced to a digest as it is read, and matched with
 * the other side's resource of the same kind and id. Only the digests of resources not yet matched are
 * held (the two exports list the same data in the same order, so that is a few chunks' worth, plus
 * what differs): never a document, whatever the organisation's size.
 *
 * A resource's digest is a SHA-256 over its fields, each field (a leaf of the JSON item: `user.profile.firstName`,
 * `roleKeys`) written as its path and canonical value; beside it a short checksum per field says which
 * fields differ. Values are never printed: a difference names the kind, the id and the fields only, so
 * password hashes, TOTP secrets and key material (compared when both exports carry them) stay unseen.
 *
 * Ignored, as they differ between instances by design: the domain each instance generated for the
 * organisation from its own domain (`identityServiceGenerated`, which the import skips), and this
 * service's extensions the target has where the source's document has none (a ZITADEL source: the
 * client ids and grant ids the import minted), and bookkeeping (`NOT_COMPARED`). Everything else an export → import keeps (ids of users,
 * projects, applications and their client ids, grants' `identityServiceGrantId`, keys, tokens) is compared.
 */
import { createHash } from 'node:crypto';
import { Assembler } from 'stream-json/core/assembler.js';
import type { Token } from 'stream-json/core/parser.js';
import { tokenBatches } from './json-tokens.js';

/** One resource of a document, reduced to what the comparison needs. */
export interface Resource {
  kind: string;
  orgId: string;
  id: string;
  /** SHA-256 (base64url) over every field's path and canonical value. */
  digest: string;
  /**
   * Its fields as `path=value` lines, sorted by path: held only until the resource is matched with the
   * other side's (most are, in the same round) or, still unmatched after its round, reduced to `shape`
   * and `sums` (fieldSums), so that what waits holds checksums, not values.
   */
  fields?: [path: string, line: string][];
  /** The fields' paths, in order, joined by newlines (the same string for every resource of one shape). */
  shape?: string;
  /** A checksum of each field, 8 hex characters each, in the order of `shape`. */
  sums?: string;
}

/** An item's id from its fields; the kind's name as the import's summary names it. */
type ListKind = { kind: string; id: (item: Record<string, unknown>) => unknown[] };

/** The organisation's lists in an export, each item a resource. */
const LISTS: Record<string, ListKind> = {
  humanUsers: { kind: 'human_user', id: (i) => [i.userId] },
  machineUsers: { kind: 'machine_user', id: (i) => [i.userId] },
  domains: { kind: 'domain', id: (i) => [i.domainName] },
  userMetadata: { kind: 'user_metadata', id: (i) => [i.id, i.key] },
  projects: { kind: 'project', id: (i) => [i.projectId] },
  projectRoles: { kind: 'project_role', id: (i) => [i.projectId, i.roleKey] },
  apiApps: { kind: 'api_app', id: (i) => [i.appId] },
  oidcApps: { kind: 'oidc_app', id: (i) => [i.appId] },
  machineKeys: { kind: 'machine_user_key', id: (i) => [i.keyId] },
  appKeys: { kind: 'app_key', id: (i) => [i.id] },
  identityServicePersonalAccessTokens: { kind: 'personal_access_token', id: (i) => [i.tokenId] },
  identityServiceMachineSecrets: { kind: 'machine_secret', id: (i) => [i.userId] },
  projectGrants: { kind: 'project_grant', id: (i) => [i.grantId] },
  projectGrantMembers: { kind: 'project_grant_member', id: (i) => [i.grantId, i.userId] },
  // One grant per organisation, user and project (ZITADEL's constraint): named so, as ZITADEL's document has no grant id;
  // this service's `identityServiceGrantId` is one of its fields.
  userGrants: { kind: 'user_grant', id: (i) => [i.userId, i.projectId] },
  orgMembers: { kind: 'org_member', id: (i) => [i.userId] },
  projectMembers: { kind: 'project_member', id: (i) => [i.projectId, i.userId] },
  oidcIdps: { kind: 'oidc_idp', id: (i) => [i.idpId] },
  jwtIdps: { kind: 'jwt_idp', id: (i) => [i.idpId] },
  userLinks: { kind: 'user_link', id: (i) => [i.userId, i.idpId, i.providedUserId] },
  loginTexts: { kind: 'login_texts', id: (i) => [i.language] },
};

/** A list the table does not know (a message text list, a newer export's): named by its field, the item by its language or else its content. */
function listKind(field: string): ListKind {
  if (Object.hasOwn(LISTS, field)) return LISTS[field]!;
  // An organisation's own policy: a single field of the organisation (`loginPolicy`), one resource each.
  if (field.endsWith('Policy')) return { kind: 'policy', id: () => [field] };
  if (field.endsWith('Messages')) return { kind: 'message_text', id: (i) => [field, i.language] };
  return { kind: field, id: () => [] };
}

/** Whether an item differs between instances by design, and is left out of the comparison. */
const ignored = (field: string, item: Record<string, unknown>) => field === 'domains' && item.identityServiceGenerated === true;

/** JSON with objects' keys sorted: the same value gives the same text whatever the order it was written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * An item's fields that are bookkeeping, not what a person set: the step of the last TOTP code a user
 * gave (a replay guard, `identityServiceOtpLastStep`) moves at each sign-in, at either instance, and
 * only ever forward at the target; comparing it would list every user who signed in since the last round.
 */
const NOT_COMPARED = new Set(['identityServiceOtpLastStep']);

/** The leaves of an item (objects walked, arrays and scalars are leaves) as `path=value` lines. */
function leaves(value: unknown, path: string, out: [string, string][]): [string, string][] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of Object.keys(value)) if (path || !NOT_COMPARED.has(key)) leaves((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, out);
  } else {
    out.push([path, `${path}=${canonical(value)}\n`]);
  }
  return out;
}

/** FNV-1a, 32 bits: a cheap checksum that tells which fields differ (the SHA-256 decides whether any does). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function digestOf(value: unknown): Pick<Resource, 'digest' | 'fields'> {
  const fields = leaves(value, '', []).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let text = '';
  for (const [, line] of fields) text += line;
  return { digest: createHash('sha256').update(text).digest('base64url'), fields };
}

/** Shapes are few (one per kind and set of fields): one string each, shared by every resource of that shape. */
const shapes = new Map<string, string>();

/** Reduces a resource's fields to their paths (a shared shape) and a checksum each; idempotent. */
function fieldSums(r: Resource): void {
  if (!r.fields) return;
  const shapeText = r.fields.map(([path]) => path).join('\n');
  r.shape = shapes.get(shapeText) ?? (shapes.set(shapeText, shapeText), shapeText);
  r.sums = r.fields.map(([, line]) => fnv1a(line)).join('');
  r.fields = undefined;
}

const VALUE_START = new Set(['startObject', 'startArray', 'stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

type OrgFrame = { at: 'org'; key?: string; fields: Record<string, unknown>; held: { field: string; value: unknown }[] };
type Frame = { at: 'root'; key?: string } | { at: 'orgs' } | OrgFrame | { at: 'list'; field: string };

/**
 * Turns the tokens of an export (`{"orgs":[{…}]}`) into resources: each list item is assembled
 * alone and reduced to its digest at once; the organisation's single fields (`orgId`, `org`,
 * `orgState`) make the organisation's resource, each policy its own.
 */
class ResourceReader {
  readonly ready: Resource[] = [];
  ignored = 0;
  private readonly stack: Frame[] = [];
  private value?: { asm: Assembler; deliver: (value: unknown) => void };
  private skipping = 0;
  /** The organisation being read, and its id once read. */
  private org?: OrgFrame;
  private orgId?: string;

  token(t: Token): void {
    if (this.value) {
      this.value.asm.consume(t);
      if (this.value.asm.done) {
        const { asm, deliver } = this.value;
        this.value = undefined;
        deliver(asm.current);
      }
      return;
    }
    if (this.skipping) {
      if (t.name === 'startObject' || t.name === 'startArray') this.skipping++;
      else if (t.name === 'endObject' || t.name === 'endArray') this.skipping--;
      return;
    }
    const top = this.stack.at(-1);
    if (t.name === 'keyValue') {
      if (top?.at === 'root' || top?.at === 'org') top.key = t.value;
      return;
    }
    if (t.name === 'endObject' || t.name === 'endArray') {
      this.stack.pop();
      if (top?.at === 'org') this.orgEnd(top);
      return;
    }
    if (!VALUE_START.has(t.name)) return;
    this.valueIn(top, t);
  }

  private valueIn(top: Frame | undefined, t: Token): void {
    if (!top) {
      if (t.name !== 'startObject') throw new Error('the export is not a document ({"orgs": […]})');
      this.stack.push({ at: 'root' });
    } else if (top.at === 'root') {
      if (top.key === 'orgs' && t.name === 'startArray') this.stack.push({ at: 'orgs' });
      else this.skip(t);
    } else if (top.at === 'orgs') {
      if (t.name !== 'startObject') return this.skip(t);
      this.orgId = undefined;
      this.org = { at: 'org', fields: {}, held: [] };
      this.stack.push(this.org);
    } else if (top.at === 'org') {
      const field = top.key!;
      if (t.name === 'startArray') return void this.stack.push({ at: 'list', field });
      this.assemble(t, (value) => this.orgField(field, value));
    } else {
      const { field } = top;
      this.assemble(t, (value) => this.item(field, value));
    }
  }

  private assemble(t: Token, deliver: (value: unknown) => void): void {
    const asm = new Assembler();
    asm.consume(t);
    if (asm.done) deliver(asm.current);
    else this.value = { asm, deliver };
  }

  private skip(t: Token): void {
    if (t.name === 'startObject' || t.name === 'startArray') this.skipping = 1;
  }

  private orgField(field: string, value: unknown): void {
    if (field.endsWith('Policy')) return this.item(field, value);
    this.org!.fields[field] = value;
    if (field === 'orgId') {
      this.orgId = String(value);
      // Items read before the organisation's id (an export writes it first; another document may not).
      for (const { field: f, value: v } of this.org!.held.splice(0)) this.item(f, v);
    }
  }

  private item(field: string, value: unknown): void {
    if (this.orgId === undefined) return void this.org!.held.push({ field, value });
    const item = (value ?? {}) as Record<string, unknown>;
    if (ignored(field, item)) return void this.ignored++;
    const { kind, id } = listKind(field);
    this.emit(kind, id(item), value);
  }

  private orgEnd(org: OrgFrame): void {
    this.orgId ??= '';
    for (const { field, value } of org.held.splice(0)) this.item(field, value);
    this.emit('org', [], org.fields);
  }

  private emit(kind: string, idParts: unknown[], value: unknown): void {
    const d = digestOf(value);
    const parts = idParts.filter((p) => p !== undefined && p !== null && p !== '').map(String);
    // An item with no id of its own (an unknown list's) is named by its content: a change shows as one missing and one extra.
    const id = parts.length ? parts.join('/') : kind === 'org' ? this.orgId! : d.digest.slice(0, 16);
    this.ready.push({ kind, orgId: this.orgId!, id, ...d });
  }
}

/** The resources of an export's body, a chunk's worth at a time. */
async function* resourceBatches(body: AsyncIterable<Uint8Array>, onIgnored: (n: number) => void): AsyncGenerator<Resource[]> {
  const reader = new ResourceReader();
  for await (const tokens of tokenBatches(body)) {
    for (const t of tokens) reader.token(t);
    if (reader.ready.length) yield reader.ready.splice(0);
  }
  onIgnored(reader.ignored);
}

export interface Difference {
  change: 'missing' | 'extra' | 'changed';
  kind: string;
  orgId: string;
  id: string;
  /** For a changed resource: the paths of the fields that differ (added, removed or changed). */
  fields?: string[];
}

export interface Comparison {
  /** Resources read at the source (organisations not at the target counted too). */
  resources: number;
  /** Organisations read at the source. */
  orgs: number;
  differences: Difference[];
  /** Organisations asked for that the target does not have, with how many resources each holds at the source. */
  missingOrgs: Map<string, number>;
  /** Items left out as different by design: the generated domains, resources that differ only by what the import minted. */
  ignored: number;
  /** The most resources that waited at once for the other side's (what the comparison held). */
  peakWaiting: number;
}

/** This service's extensions (`identityServiceClient.clientId`, `identityServiceGrantId`): the import makes them when a document has none. */
const MINTED = /(^|\.)identityService/;

/** The fields whose checksum differs, or that only one side has (none: only what the import minted). */
function differingFields(a: Resource, b: Resource): string[] {
  const sums = (r: Resource) => {
    fieldSums(r);
    return new Map(r.shape!.split('\n').map((path, i) => [path, r.sums!.slice(i * 8, i * 8 + 8)]));
  };
  const [x, y] = [sums(a), sums(b)];
  const paths = [...new Set([...x.keys(), ...y.keys()])].sort();
  const differ = paths.filter((p) => x.get(p) !== y.get(p));
  // The SHA-256s differ but no checksum does: a collision of the short checksums (unlikely), said as such.
  if (!differ.length) return ['(fields not told apart)'];
  // What the import mints where the source's document has none (a ZITADEL source: client ids, grant ids) is no difference.
  return differ.filter((p) => !(x.get(p) === undefined && MINTED.test(p)));
}

type Pending = { side: 0 | 1; resource: Resource; count: number };

/**
 * Compares the source's export with the target's, read side by side, the one behind next.
 * `missingOrgs`: organisations the target does not have (its export was not asked for them): their
 * resources at the source are counted, not listed one by one.
 */
export async function compareExports(source: AsyncIterable<Uint8Array>, target: AsyncIterable<Uint8Array>, missingOrgIds: string[] = []): Promise<Comparison> {
  const missingOrgs = new Map(missingOrgIds.map((id) => [id, 0]));
  const result: Comparison = { resources: 0, orgs: 0, differences: [], missingOrgs, ignored: 0, peakWaiting: 0 };
  const pending = new Map<string, Pending>();
  /** The keys that began to wait in this round: those still unmatched at its end keep checksums only. */
  const waiting: string[] = [];
  const arrive = (side: 0 | 1, r: Resource) => {
    if (side === 0) {
      result.resources++;
      if (r.kind === 'org') result.orgs++;
      if (missingOrgs.has(r.orgId)) return void missingOrgs.set(r.orgId, missingOrgs.get(r.orgId)! + 1);
    }
    const key = `${r.kind}\n${r.orgId}\n${r.id}`;
    const other = pending.get(key);
    if (!other) {
      pending.set(key, { side, resource: r, count: 1 });
      result.peakWaiting = Math.max(result.peakWaiting, pending.size);
      return void waiting.push(key);
    }
    if (other.side === side) return void other.count++;
    if (other.resource.digest !== r.digest) {
      const [a, b] = side === 1 ? [other.resource, r] : [r, other.resource];
      const fields = differingFields(a, b);
      if (fields.length) result.differences.push({ change: 'changed', kind: r.kind, orgId: r.orgId, id: r.id, fields });
      else result.ignored++;
    }
    if (--other.count === 0) pending.delete(key);
  };

  const sides = [resourceBatches(source, (n) => (result.ignored += n)), resourceBatches(target, () => {})];
  const open = [true, true];
  const read = [0, 0];
  try {
    while (open[0] || open[1]) {
      // The side that has given fewer resources is read next (both when even): the two stay level
      // whatever the sizes of the chunks each connection delivers, so few resources wait.
      const pull = [open[0] && (!open[1] || read[0] <= read[1]), open[1] && (!open[0] || read[1] <= read[0])];
      // Both reads settled before either is looked at: on a failure, neither is left running.
      const batches = await Promise.allSettled(sides.map((s, i) => (pull[i] ? s.next() : undefined)));
      batches.forEach((settled, i) => {
        if (settled.status === 'rejected') throw settled.reason;
        const batch = settled.value;
        if (!batch) return;
        if (batch.done) open[i] = false;
        else {
          read[i] += batch.value.length;
          for (const r of batch.value) arrive(i as 0 | 1, r);
        }
      });
      for (const key of waiting.splice(0)) {
        const entry = pending.get(key);
        if (entry) fieldSums(entry.resource);
      }
    }
  } finally {
    // A side that failed or ended early: the other's answer is not read on (its body is cancelled).
    await Promise.all(sides.map((s) => s.return(undefined).catch(() => {})));
  }
  for (const { side, resource: r, count } of pending.values()) {
    for (let n = 0; n < count; n++) result.differences.push({ change: side === 0 ? 'missing' : 'extra', kind: r.kind, orgId: r.orgId, id: r.id });
  }
  const order = { missing: 0, extra: 1, changed: 2 };
  result.differences.sort((a, b) => order[a.change] - order[b.change] || a.kind.localeCompare(b.kind) || a.orgId.localeCompare(b.orgId) || a.id.localeCompare(b.id));
  return result;
}

/** The lines verify prints: a line per difference, and a plain summary. Never a value (secrets among them). */
export function describeComparison(c: Comparison, compared: string): { lines: string[]; agree: boolean } {
  const lines: string[] = [];
  for (const [orgId, n] of c.missingOrgs) lines.push(`missing  org ${orgId}: not at the target (${n} resource(s) at the source)`);
  for (const d of c.differences) {
    lines.push(`${d.change.padEnd(7)}  ${d.kind} ${d.id} in org ${d.orgId}${d.fields ? `: ${d.fields.join(', ')}` : ''}`);
  }
  const count = (change: Difference['change']) => c.differences.filter((d) => d.change === change).length;
  const total = c.differences.length + c.missingOrgs.size;
  const scope = `${c.resources} resource(s) of ${c.orgs} organisation(s) compared by digest (${compared})`;
  if (total === 0) {
    lines.push(`the instances agree: ${scope}`);
  } else {
    const parts = [
      c.missingOrgs.size ? `${c.missingOrgs.size} organisation(s) missing at the target` : '',
      `${count('missing')} missing at the target`,
      `${count('extra')} extra at the target`,
      `${count('changed')} changed`,
    ].filter(Boolean);
    lines.push(`the instances differ: ${total} difference(s) (${parts.join(', ')}); ${scope}`);
  }
  return { lines, agree: total === 0 };
}
