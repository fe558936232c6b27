/**
 * An organisation's primary domain, as ZITADEL derives it: the name reduced to DNS label
 * characters, under the instance's domain (e.g. "ACME Corp" → "acme-corp.localhost").
 */
export function orgPrimaryDomain(name: string, instanceDomain: string): string {
  const label =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'org';
  return `${label}.${instanceDomain}`;
}

/**
 * The lock on a domain name, taken by every command that checks whether another organisation
 * verified the domain or holds it as its primary one, before it verifies it, makes it primary or
 * creates an organisation with it: the check spans organisations, so the organisation's own lock
 * does not serialise it, and no unique index covers it (ARCHITECTURE.md, "Locks before checks").
 * A lock key, not an aggregate: nothing is appended to it.
 */
export const domainLock = (domain: string) => ['org_domain', domain] as const;
