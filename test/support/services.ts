/**
 * Access to the real services tests may run against.
 *
 * Tests that need Postgres / Redis skip when TEST_DATABASE_URL / TEST_REDIS_URL is unset
 * (`describe.skipIf(!testDatabaseUrl())`, or a variant left out of `backends`/`storeKinds()`).
 * Such a skip is never silent: every test file that has such variants gets a skipped suite
 * titled with the variable that is missing (see `reportSkippedVariants`). With `CI=true` a
 * missing variable fails the file instead. When a URL IS set, the helpers below throw a clear
 * error if the service cannot be reached, so CI fails instead of silently skipping.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, it } from 'vitest';

type ServiceVariable = 'TEST_DATABASE_URL' | 'TEST_REDIS_URL';

/** How a test file shows it has variants on a real service, and what they need. */
const VARIANT_MARKERS: { pattern: RegExp; variable: ServiceVariable; what: string }[] = [
  {
    pattern: /describe\.each\(backends\)/,
    variable: 'TEST_DATABASE_URL',
    what: 'the Postgres (Neon driver) backend',
  },
  { pattern: /testDatabaseUrl\(\)/, variable: 'TEST_DATABASE_URL', what: 'suites on the CI Postgres' },
  {
    pattern: /storeKinds\(\)|testRedisUrl\(\)/,
    variable: 'TEST_REDIS_URL',
    what: 'the Upstash store through the REST bridge',
  },
];

/**
 * The real-service variants `source` (a test file) declares that cannot run for lack of their
 * variable, one line per variable with what it would have run.
 */
export function skippedVariants(source: string, env: Record<string, string | undefined> = process.env) {
  const missing = new Map<ServiceVariable, string[]>();
  for (const { pattern, variable, what } of VARIANT_MARKERS) {
    if (env[variable] || !pattern.test(source)) continue;
    missing.set(variable, [...(missing.get(variable) ?? []), what]);
  }
  return [...missing].map(([variable, whats]) => ({ variable, reason: `${variable} is not set`, whats }));
}

/**
 * Runs once per test file (this module is loaded afresh in each): reports that file's
 * real-service variants that will not run as skipped suites with the reason in the title, or,
 * under `CI=true`, fails the file, since CI must run every variant.
 */
function reportSkippedVariants(): void {
  const file = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath;
  if (!file) return;
  const skipped = skippedVariants(readFileSync(file, 'utf8'));
  if (skipped.length === 0) return;
  if (process.env.CI === 'true') {
    throw new Error(
      `CI=true but ${skipped.map((s) => s.variable).join(' and ')} not set: ${file} has real-service variants that would be skipped.`,
    );
  }
  for (const { reason, whats } of skipped) {
    describe.skip(`real-service variants (skipped: ${reason})`, () => {
      for (const what of whats) it.skip(`${what} (skipped: ${reason})`, () => {});
    });
  }
}
reportSkippedVariants();

export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

export function testRedisUrl(): string | undefined {
  return process.env.TEST_REDIS_URL || undefined;
}

export interface ScratchDatabase {
  /** Connection string for the new database (same server and credentials). */
  url: string;
  drop(): Promise<void>;
}

const redact = (url: string): string => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`Postgres at ${redact(serverUrl)} is unreachable: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Waits (up to 5 s) until `name` has no sessions. A pool's end() (the Neon one above all) can
 * resolve before the server has seen its sessions go, and a forced drop racing them surfaces as
 * an unhandled FATAL 57P01 in the closing driver.
 */
async function untilNoSessions(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates a uniquely named database on the server behind `url` (typically
 * TEST_DATABASE_URL), so each test file gets an isolated database.
 */
export async function createScratchDatabase(url: string): Promise<ScratchDatabase> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(url, `CREATE DATABASE "${name}"`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  let dropped = false;
  return {
    url: scratch.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await untilNoSessions(url, name);
      // WITH (FORCE) (Postgres 13+) terminates connections a test left open.
      await adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
