import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import unitFiles from './unit-files.json';

/**
 * `npm run test:unit` runs the files listed in test/unit-files.json, chosen by name so a comment
 * cannot move a file between loops. This test keeps the list honest: a listed file must need
 * nothing beyond its own process, and a file that needs nothing more must be listed. "Needs more"
 * is read from what a file imports, following the test/ helpers it imports (a helper that
 * starts a server or a database makes its importers need one too).
 */
const NEEDS_MORE =
  /support\/(harness|services|neon|upstash|contract)|src\/db\/(node|client)$|src\/(index|app|server|cron|node-runtime)$|workerd|miniflare|playwright|cloudflare:|^node:(child_process|http|https|net)$|^(ioredis|pg|@upstash\/redis)$|^@neondatabase\/|^@electric-sql\/pglite|^drizzle-orm\/(neon|node-postgres|pglite)|store\/upstash$/;

const root = dirname(new URL(import.meta.url).pathname);

const importsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport\(?)\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/** The test-local module a relative import names, if it is one (src/ modules are not followed). */
function testModule(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier);
  if (relative(root, base).startsWith('..')) return undefined;
  return [`${base}.ts`, join(base, 'index.ts')].find(existsSync);
}

function needsMore(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  for (const specifier of importsOf(file)) {
    if (NEEDS_MORE.test(specifier)) return `${relative(root, file)} imports ${specifier}`;
    const local = testModule(file, specifier);
    const why = local && needsMore(local, seen);
    if (why) return why;
  }
  return undefined;
}

const testFiles = readdirSync(root, { recursive: true })
  .map(String)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => join('test', name))
  .sort();

describe('the unit loop (test/unit-files.json)', () => {
  it('lists only test files that exist, each once', () => {
    expect(unitFiles.filter((file) => !testFiles.includes(file))).toEqual([]);
    expect(new Set(unitFiles).size).toBe(unitFiles.length);
  });

  it('lists no file that needs a database, server, socket, worker or browser', () => {
    const wrong = unitFiles.map((file) => needsMore(join(root, '..', file))).filter(Boolean);
    expect(wrong).toEqual([]);
  });

  it('lists every file that needs nothing beyond its own process', () => {
    const missing = testFiles.filter(
      (file) => !unitFiles.includes(file) && needsMore(join(root, '..', file)) === undefined,
    );
    expect(missing).toEqual([]);
  });
});
