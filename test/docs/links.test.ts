import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/http/problem';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Anchors GitHub gives the headings of `markdown`: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** Every relative link of `file` that does not resolve: a missing file, or a missing anchor. */
function brokenLinks(file: string, markdown = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: … (not checked offline)
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    if (!path) {
      if (!anchors(markdown).has(anchor!)) broken.push(`${file}: ${target} (no heading #${anchor} here)`);
      continue;
    }
    const linked = join(dirname(join(ROOT, file)), decodeURIComponent(path));
    if (!existsSync(linked)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined) {
      const isMarkdown = statSync(linked).isFile() && linked.endsWith('.md');
      if (!isMarkdown || !anchors(readFileSync(linked, 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(ROOT, linked)})`);
      }
    }
  }
  return broken;
}

describe('the README and the guides under docs/', () => {
  it('have no broken relative link or anchor', () => {
    expect(DOCS.length).toBeGreaterThan(10);
    expect(DOCS.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('point nowhere outside the repository in words either', () => {
    for (const file of DOCS) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(
        /DESIGN\s*§|DESIGN\.md|\bthe spec\b|api-spec/i,
      );
    }
  });

  it('keep the README a front page, with the guides in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200);
  });

  it('give every error code the API can answer its own entry in docs/errors.md, and no other', () => {
    const entries = [
      ...readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^### `([a-z_]+)`$/gm),
    ].map((m) => m[1]);
    expect(entries.sort()).toEqual(Object.keys(PROBLEMS).sort());
  });

  it('finds a broken link and a broken anchor when there is one', () => {
    expect(anchors('# Paging and sync\n## `not_found`\n## Try it: `npm run dev:worker`\n## A\n## A')).toEqual(
      new Set(['paging-and-sync', 'not_found', 'try-it-npm-run-devworker', 'a', 'a-1']),
    );
    expect(prose('see [x](a.md) `[y](b.md)`\n```\n[z](c.md)\n```\n')).toBe('see [x](a.md) \n\n');
    const page =
      '[a](signals.md#paging-and-sync) [b](signals.md#nowhere) [c](missing.md) [d](#top) [e](#gone) [f](https://x.org/#y)';
    expect(brokenLinks('docs/page.md', `# Top\n${page}`)).toEqual([
      'docs/page.md: signals.md#nowhere (no heading #nowhere in docs/signals.md)',
      'docs/page.md: missing.md (no such file)',
      'docs/page.md: #gone (no heading #gone here)',
    ]);
  });
});
