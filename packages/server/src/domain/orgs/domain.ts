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
