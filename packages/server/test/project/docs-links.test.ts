/**
 * The docs a person reads link to each other (issue 50: README.md is the entrance, topic guides under
 * docs/, ARCHITECTURE.md a map into docs/architecture/, BENCHMARKS.md beside docs/benchmarks-history.md).
 * Every relative link between them must name a file that exists and, with a `#fragment`, a heading of
 * that file, slugged as GitHub renders it; a guide moved or a heading renamed fails here, not in a reader's
 * browser. External links (http, mailto) are not fetched.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return path.endsWith('.md') ? [path] : [];
  });
}

const DOCS = [...['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md'].map((name) => join(REPO, name)), ...markdownUnder(join(REPO, 'docs'))];

/** The text outside fenced code blocks and inline code spans, where a link is a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a file's headings (github-slugger: lower case, punctuation dropped, spaces → '-', repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const title = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = title
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  from: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    links.push({ from: relative(REPO, file), target });
  }
  return links;
}

/** What is wrong with one link, or undefined. */
function brokenLink({ from, target }: Link): string | undefined {
  const [path, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(REPO, from) : resolve(dirname(join(REPO, from)), decodeURI(path));
  if (!existsSync(file)) return `${from}: ${target} → no such file`;
  if (fragment === undefined) return undefined;
  if (!file.endsWith('.md')) return `${from}: ${target} → a fragment into a file that is not markdown`;
  if (!headingAnchors(readFileSync(file, 'utf8')).has(fragment)) return `${from}: ${target} → no heading #${fragment} in ${relative(REPO, file)}`;
  return undefined;
}

describe('links between the docs', () => {
  it('finds the docs and their links (the check checks something)', () => {
    expect(DOCS.map((f) => relative(REPO, f))).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/architecture/store.md']));
    expect(DOCS.flatMap(relativeLinks).length).toBeGreaterThan(50);
  });

  it('slugs headings as GitHub does', () => {
    expect([...headingAnchors('## Which organisation a call acts on: `x-service-orgid`\n## 4.1 over RPC, ≤ 1.3×\n## Export\n## Export')]).toEqual([
      'which-organisation-a-call-acts-on-x-service-orgid',
      '41-over-rpc--13',
      'export',
      'export-1',
    ]);
  });

  it('every relative link names an existing file and, with a fragment, one of its headings', () => {
    expect(DOCS.flatMap(relativeLinks).map(brokenLink).filter(Boolean)).toEqual([]);
  });
});
