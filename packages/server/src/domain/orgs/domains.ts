/**
 * Organisations' domains (ZITADEL's v1 AddOrgDomain, ListOrgDomains, RemoveOrgDomain,
 * GenerateOrgDomainValidation, ValidateOrgDomain, SetPrimaryOrgDomain). Every organisation has the
 * domain generated from its name at creation (verified, primary at first). A domain added by hand is
 * unverified until its validation succeeds: over HTTP, `https://<domain>/.well-known/zitadel-challenge/<token>.txt`
 * must answer the token (ZITADEL's path); over DNS, a TXT record at `_zitadel-challenge.<domain>` must
 * hold it. With the domain policy's `validateOrgDomains` (the effective one), only a verified domain can
 * become primary. The primary domain is the suffix of the organisation's login names
 * (`user@<primary>`). A verified domain belongs to one organisation of the instance: whatever checks
 * that (and the primary domains of other organisations) holds the domain's lock (`domainLock`).
 */
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { fetchLimited, OutboundError } from '../../outbound/limited-fetch.js';
import type { OrgDomainRow } from '../../store/repositories/org-domains.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { domain as domainPolicy } from '../policies/domain.js';
import { ORG_AGGREGATE } from './commands.js';
import { domainLock } from './domain.js';

export const VALIDATION_TYPES = ['DOMAIN_VALIDATION_TYPE_HTTP', 'DOMAIN_VALIDATION_TYPE_DNS'] as const;
export type ValidationType = (typeof VALIDATION_TYPES)[number];

const isValidationType = (type: string): type is ValidationType => (VALIDATION_TYPES as readonly string[]).includes(type);

/** How validations reach the domains (tests point HTTP at a server on loopback). */
export interface DomainCheckOptions {
  /** `https` (ZITADEL's); `http` only for tests and closed networks. */
  scheme?: 'https' | 'http';
  /** A port to use instead of the scheme's (tests). */
  port?: number;
  timeoutMs?: number;
  /** DNS servers to ask (default: the system's). */
  dnsServers?: string[];
}

const CHECK_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 4 * 1024;

/** A DNS name: labels of letters, digits and hyphens, 1 to 253 characters, at least one dot. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function normaliseDomain(input: string): string {
  const d = input.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(d)) throw invalidArgument('ORG-R24hb', 'invalid domain: value must be a domain name such as example.com');
  return d;
}

export interface OrgDomainView {
  orgId: string;
  domainName: string;
  isVerified: boolean;
  isPrimary: boolean;
  /** Unspecified until a validation is generated. */
  validationType: ValidationType | 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED';
  details: Partial<ObjectDetails>;
}

const view = (row: OrgDomainRow): OrgDomainView => ({
  orgId: row.orgId,
  domainName: row.domain,
  isVerified: row.isVerified,
  isPrimary: row.isPrimary,
  validationType: isValidationType(row.validationType) ? row.validationType : 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED',
  details: viewDetails(row, row.orgId),
});

export async function listOrgDomains(store: Store, ctx: RequestContext, input: { query?: ListQueryInput } = {}): Promise<{ details: ListDetails; result: OrgDomainView[] }> {
  requirePermission(ctx, 'org.read');
  // An organisation has a handful of domains: paged in memory.
  const rows = await store.read.orgDomains.list(ctx.orgId);
  const page = toPage(input.query);
  const ordered = page.asc ? rows : [...rows].reverse();
  return { details: listDetails(rows.length, new Date()), result: ordered.slice(page.offset, page.offset + page.limit).map(view) };
}

async function existing(tx: Store['read'], orgId: string, domain: string) {
  const row = await tx.orgDomains.get(orgId, domain);
  if (!row) throw notFound('Domain-3M9sd', 'Domain not found');
  return row;
}

export async function addOrgDomain(store: Store, ctx: RequestContext, input: { domain: string }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.write');
  const domain = normaliseDomain(input.domain);
  return store.transaction(
    async (tx) => {
      if (await tx.orgDomains.get(ctx.orgId, domain)) throw alreadyExists('ORG-11r1m', 'The organisation has this domain already');
      if (await tx.orgDomains.verifiedElsewhere(domain, ctx.orgId)) throw alreadyExists('ORG-i2bsd', 'Another organisation has verified this domain');
      const event = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: ctx.orgId,
        type: 'org.domain.added',
        payload: { domain },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.orgDomains.insert({
        orgId: ctx.orgId,
        domain,
        isVerified: false,
        isPrimary: false,
        validationType: 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED',
        validationToken: null,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      return { details: addedDetails(event) };
    },
    [[ORG_AGGREGATE, ctx.orgId], domainLock(domain)],
  );
}

export async function removeOrgDomain(store: Store, ctx: RequestContext, rawDomain: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.write');
  const domain = normaliseDomain(rawDomain);
  return store.transaction(
    async (tx) => {
      const row = await existing(tx, ctx.orgId, domain);
      if (row.isPrimary) throw failedPrecondition('ORG-Sjdi3', 'The primary domain cannot be removed; make another one primary first');
      const event = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: ctx.orgId,
        type: 'org.domain.removed',
        payload: { domain },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.orgDomains.remove(ctx.orgId, domain);
      return { details: changedDetails(event) };
    },
    [[ORG_AGGREGATE, ctx.orgId]],
  );
}

const challengeUrl = (domain: string, token: string, options: DomainCheckOptions = {}) =>
  `${options.scheme ?? 'https'}://${domain}${options.port ? `:${options.port}` : ''}/.well-known/zitadel-challenge/${token}.txt`;
const dnsName = (domain: string) => `_zitadel-challenge.${domain}`;

export async function generateOrgDomainValidation(
  store: Store,
  ctx: RequestContext,
  rawDomain: string,
  input: { type?: string },
  options: DomainCheckOptions = {},
): Promise<{ token: string; url: string }> {
  requirePermission(ctx, 'org.write');
  const domain = normaliseDomain(rawDomain);
  const type = input.type as ValidationType;
  if (!VALIDATION_TYPES.includes(type)) throw invalidArgument('ORG-Gsw31', 'invalid type: must be DOMAIN_VALIDATION_TYPE_HTTP or DOMAIN_VALIDATION_TYPE_DNS');
  const token = randomBytes(24).toString('base64url');
  await store.transaction(
    async (tx) => {
      const row = await existing(tx, ctx.orgId, domain);
      if (row.isVerified) throw failedPrecondition('ORG-HGw21', 'The domain is verified already');
      const event = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: ctx.orgId,
        type: 'org.domain.verification.added',
        payload: { domain, validationType: type },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.orgDomains.update(ctx.orgId, domain, { validationType: type, validationToken: token, sequence: event.sequence, changedAt: event.createdAt });
    },
    [[ORG_AGGREGATE, ctx.orgId]],
  );
  return { token, url: type === 'DOMAIN_VALIDATION_TYPE_HTTP' ? challengeUrl(domain, token, options) : dnsName(domain) };
}

/** Whether the domain shows the token; a failure says what was found, for the caller to fix. */
async function check(domain: string, type: ValidationType, token: string, options: DomainCheckOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  if (type === 'DOMAIN_VALIDATION_TYPE_HTTP') {
    const url = challengeUrl(domain, token, options);
    let answer;
    try {
      answer = await fetchLimited(url, { timeoutMs, maxBytes: MAX_ANSWER_BYTES });
    } catch (error) {
      if (error instanceof OutboundError) throw failedPrecondition('ORG-F4zhw', `Domain validation failed: ${error.message}`);
      throw error;
    }
    if (answer.status !== 200) throw failedPrecondition('ORG-F4zhw', `Domain validation failed: ${url} answered ${answer.status}, not 200 with the token`);
    if (answer.body.toString('utf8').trim() !== token) throw failedPrecondition('ORG-F4zhw', `Domain validation failed: ${url} does not answer the token`);
    return;
  }
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (options.dnsServers) resolver.setServers(options.dnsServers);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(dnsName(domain));
  } catch (error) {
    throw failedPrecondition('ORG-F4zhw', `Domain validation failed: no TXT record at ${dnsName(domain)} (${(error as { code?: string }).code ?? 'lookup failed'})`);
  }
  if (!records.some((parts) => parts.join('') === token)) throw failedPrecondition('ORG-F4zhw', `Domain validation failed: the TXT record at ${dnsName(domain)} does not hold the token`);
}

export async function validateOrgDomain(store: Store, ctx: RequestContext, rawDomain: string, options: DomainCheckOptions = {}): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.write');
  const domain = normaliseDomain(rawDomain);
  const row = await existing(store.read, ctx.orgId, domain);
  if (row.isVerified) throw failedPrecondition('ORG-HGw21', 'The domain is verified already');
  if (!row.validationToken || !isValidationType(row.validationType)) {
    throw failedPrecondition('ORG-Sjdi3', 'No validation was generated for this domain: generate one first');
  }
  // Outside the transaction: the check waits on the network.
  await check(domain, row.validationType, row.validationToken, options);
  return store.transaction(
    async (tx) => {
      const current = await existing(tx, ctx.orgId, domain);
      if (current.validationToken !== row.validationToken) throw failedPrecondition('ORG-Sjdi3', 'A new validation was generated meanwhile: validate again');
      if (await tx.orgDomains.verifiedElsewhere(domain, ctx.orgId)) throw alreadyExists('ORG-i2bsd', 'Another organisation has verified this domain');
      const event = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: ctx.orgId,
        type: 'org.domain.verified',
        payload: { domain },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.orgDomains.update(ctx.orgId, domain, { isVerified: true, validationToken: null, sequence: event.sequence, changedAt: event.createdAt });
      return { details: changedDetails(event) };
    },
    [[ORG_AGGREGATE, ctx.orgId], domainLock(domain)],
  );
}

export async function setPrimaryOrgDomain(store: Store, ctx: RequestContext, rawDomain: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'org.write');
  const domain = normaliseDomain(rawDomain);
  const policy = await domainPolicy.effective(store.read, ctx.instanceId, ctx.orgId);
  return store.transaction(
    async (tx) => {
      const row = await existing(tx, ctx.orgId, domain);
      if (row.isPrimary) throw failedPrecondition('ORG-Dkd23', 'The domain is the primary one already');
      if (policy.validateOrgDomains && !row.isVerified) throw failedPrecondition('ORG-Ggd32', 'The domain must be verified before it becomes primary (domain policy: validateOrgDomains)');
      const taken = await tx.orgs.getByPrimaryDomain(domain);
      if (taken && taken.id !== ctx.orgId) throw alreadyExists('ORG-i2bsd', 'Another organisation uses this domain as its primary one');
      const event = await tx.events.append({
        aggregateType: ORG_AGGREGATE,
        aggregateId: ctx.orgId,
        type: 'org.domain.primary.set',
        payload: { domain },
        creator: ctx.caller.userId,
        resourceOwner: ctx.orgId,
      });
      await tx.orgDomains.setPrimary(ctx.orgId, domain, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[ORG_AGGREGATE, ctx.orgId], domainLock(domain)],
  );
}
