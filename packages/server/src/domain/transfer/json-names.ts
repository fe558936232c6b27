/**
 * ZITADEL's gateway accepts every field under its proto name (`data_orgs`, `org_ids`) and its
 * JSON name (`dataOrgs`, `orgIds`). Input is normalised to the JSON names first, so validation
 * and everything after it sees one spelling.
 */

/** `data_orgsv1_gcs` → `dataOrgsv1Gcs`, `oidc_ipds` → `oidcIpds` (protobuf's JSON-name rule). */
export function toLowerCamel(name: string): string {
  if (!name.includes('_')) return name;
  return name.replace(/_+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Rewrites the keys of every object in `value` to lowerCamelCase, in place (a 64 MiB document
 * must not be copied). Where both spellings are present the lowerCamelCase one wins, as it is
 * the one ZITADEL's own exports use.
 */
export function normaliseKeysInPlace<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const obj = node as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const child = obj[key];
      if (child !== null && typeof child === 'object') stack.push(child);
      const camel = toLowerCamel(key);
      if (camel === key) continue;
      if (!(camel in obj)) obj[camel] = child;
      delete obj[key];
    }
  }
  return value;
}
