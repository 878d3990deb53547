import { readFileSync } from 'node:fs';
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator';
import { loadConfig, type Config } from '../../src/config';
import { neonDatabase, type DatabaseHandle, type DatabaseOptions } from '../../src/db/client';
import { MIGRATIONS_FOLDER, pgliteDatabase } from '../../src/db/node';
import type { Deps, Logger } from '../../src/deps';
import { issueKeyForEmail } from '../../src/keys/service';
import { nodeDeps, serveApp, type RunningServer } from '../../src/node-runtime';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import type { KeyTier } from '../../src/vocab';
import { contractFetch } from './contract';
import { configureNeon, startNeonBridge, type NeonBridge } from './neon-bridge';
import { createScratchDatabase, testDatabaseUrl } from './services';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** A logger that keeps lines for assertions instead of printing them. */
export function memoryLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const keep = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

export interface Backend {
  name: 'pglite' | 'neon';
  open(): Promise<DatabaseHandle>;
}

let template: Blob | undefined;

/**
 * A fresh in-memory PGlite, loaded from the migrated template the global setup left
 * (test/support/pglite-template.ts), or migrated from scratch when a file runs without it.
 */
export function testPglite(options: DatabaseOptions = {}): Promise<DatabaseHandle> {
  const file = process.env.PGLITE_TEMPLATE;
  if (file) template ??= new Blob([readFileSync(file)]);
  return pgliteDatabase(undefined, { ...options, template });
}

let bridge: Promise<NeonBridge> | undefined;

/** A fresh, migrated scratch database on the CI Postgres, reached through the Neon driver. */
async function neonScratch(): Promise<DatabaseHandle> {
  bridge ??= startNeonBridge();
  configureNeon((await bridge).port);
  const scratch = await createScratchDatabase(testDatabaseUrl()!);
  const handle = neonDatabase(scratch.url);
  await migrateNeon(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db: handle.db,
    close: async () => {
      await handle.close();
      await scratch.drop();
    },
  };
}

/** PGlite always; the CI Postgres through the Neon driver and bridge when TEST_DATABASE_URL is set. */
export const backends: Backend[] = [
  { name: 'pglite', open: () => testPglite() },
  ...(testDatabaseUrl() ? [{ name: 'neon' as const, open: neonScratch }] : []),
];

export interface TestApp extends RunningServer {
  deps: Deps;
  /** fetch against the running server, with a path relative to it. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts the real Node server on a free loopback port around `db`. */
export async function startTestApp(
  db: DatabaseHandle['db'],
  options: { store?: Store; config?: Partial<Config>; deps?: Partial<Deps> } = {},
): Promise<TestApp> {
  const config = { ...loadConfig({ ADMIN_TOKEN, LOG_LEVEL: 'silent' }), ...options.config };
  const deps = nodeDeps(config, db, options.store ?? memoryStore(), { log: memoryLogger(), ...options.deps });
  const running = await serveApp(deps, 0, '127.0.0.1');
  return {
    ...running,
    url: `http://127.0.0.1:${running.port}`,
    deps,
    // Every response a test receives is checked against the OpenAPI document.
    fetch: contractFetch(`http://127.0.0.1:${running.port}`, (path, init) =>
      fetch(`http://127.0.0.1:${running.port}${path}`, init),
    ),
  };
}

let keyCounter = 0;

/** Issues a key straight through the domain (the admin API has its own tests). */
export async function createKey(db: DatabaseHandle['db'], tier: KeyTier = 'pro', email?: string) {
  keyCounter += 1;
  const address = email ?? `user${keyCounter}-${Date.now()}@example.org`;
  const issued = await issueKeyForEmail(db, address, tier, null);
  return { ...issued, email: address };
}

export const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** Headers for an admin call. */
export const admin = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${ADMIN_TOKEN}` },
});
