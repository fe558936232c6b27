/**
 * Loads the hand-written OpenAPI document (openapi/identity.yaml and the files it references)
 * and bundles it into one object for `/openapi.json`. The rule that keeps this small:
 * a `$ref` into identity.yaml (`…/identity.yaml#/components/…`) becomes a local `#/…` ref;
 * a `$ref` to any other file is replaced by that file's content.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SPEC_ENTRY = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../openapi/identity.yaml');

type Json = unknown;

export function loadSpec(entry: string = SPEC_ENTRY): Record<string, Json> {
  const cache = new Map<string, Json>();
  const load = (file: string): Json => {
    if (!cache.has(file)) cache.set(file, parse(readFileSync(file, 'utf8')));
    return cache.get(file);
  };
  const pointer = (doc: Json, fragment: string): Json =>
    fragment
      .split('/')
      .filter(Boolean)
      .reduce<Json>((node, part) => (node as Record<string, Json>)[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

  const walk = (node: Json, file: string): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, file));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Record<string, Json>;
    if (typeof obj.$ref === 'string' && !obj.$ref.startsWith('#')) {
      const [relative, fragment = ''] = obj.$ref.split('#');
      const target = join(dirname(file), relative);
      if (target === entry) return { $ref: `#${fragment}` };
      return walk(pointer(load(target), fragment), target);
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, walk(v, file)]));
  };
  return walk(load(entry), entry) as Record<string, Json>;
}
