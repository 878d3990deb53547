import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig, type Config } from '../../src/config';
import { neonDatabase, type DatabaseHandle, type DatabaseOptions } from '../../src/db/client';
import { MIGRATIONS_FOLDER, pgliteDatabase } from '../../src/db/node';
import type { Deps } from '../../src/deps';
import type { Logger } from '../../src/log';
import { ingestSignals } from '../../src/ingest/pipeline';
import { dispatchWebhooks, type DispatchOptions } from '../../src/webhooks/dispatch';
import { issueKeyForEmail } from '../../src/keys/service';
import { nodeDeps, serveApp, type RunningServer } from '../../src/node-runtime';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import type { KeyTier } from '../../src/vocab';
import { contractFetch } from './contract';
import { fixtureItems } from './fixture';
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

type Db = DatabaseHandle['db'];

/** Ingests the hand-made fixture signals (test/support/fixture.ts): the usual seed. */
export const seedFixtures = (db: Db) => ingestSignals(db, fixtureItems());

/** What a suite's beforeAll fills in; reading a field before then throws instead of yielding undefined. */
function filled<T>(what: string): { value: T | undefined; get(): T } {
  return {
    value: undefined,
    get() {
      if (this.value === undefined)
        throw new Error(`${what} is set in beforeAll: use it inside a test or hook`);
      return this.value;
    },
  };
}

export interface DatabaseOptionsForSuite {
  /** How to open the database: a fresh PGlite from the template unless said. */
  open?: () => Promise<DatabaseHandle>;
  /** Run once on the fresh database, before anything else uses it. */
  seed?: (db: Db) => Promise<unknown>;
  /** The set-up's own time limit, for a slow seed or a remote database. */
  timeout?: number;
}

export interface TestDatabase {
  readonly database: DatabaseHandle;
  readonly db: Db;
}

/**
 * Opens a fresh migrated database in beforeAll (seeded if asked) and closes it in afterAll.
 *
 * @example
 * const suite = withTestDatabase({ seed: seedFixtures });
 * it('reads', async () => expect(await countSignals(suite.db)).toBe(10));
 */
export function withTestDatabase(options: DatabaseOptionsForSuite = {}): TestDatabase {
  const database = filled<DatabaseHandle>('the database');
  beforeAll(async () => {
    database.value = await (options.open ?? testPglite)();
    await options.seed?.(database.value.db);
  }, options.timeout);
  afterAll(async () => {
    await database.value?.close();
  });
  return {
    get database() {
      return database.get();
    },
    get db() {
      return database.get().db;
    },
  };
}

export interface TestAppOptions extends DatabaseOptionsForSuite {
  store?: Store;
  config?: Partial<Config>;
  deps?: Partial<Deps>;
  /** Issue the suite a key of this tier, read as `key`. */
  key?: KeyTier;
}

export interface TestAppContext extends TestDatabase {
  readonly app: TestApp;
  /** The server's base URL. */
  readonly url: string;
  readonly deps: Deps;
  /** The key issued for the suite (only with the `key` option). */
  readonly key: string;
  /** `app.fetch`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** `app.fetch` sending the suite's key. */
  keyed(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * A database and the real server around it for one suite: opened, seeded and started in
 * beforeAll, closed in afterAll.
 *
 * @example
 * const suite = withTestApp({ seed: seedFixtures, key: 'pro' });
 * it('lists', async () => expect((await suite.keyed('/api/v1/signals')).status).toBe(200));
 */
export function withTestApp(options: TestAppOptions = {}): TestAppContext {
  const base = withTestDatabase(options);
  const app = filled<TestApp>('the app');
  const key = filled<string>(options.key ? 'the key' : 'a key (pass the key option)');
  beforeAll(async () => {
    if (options.key) key.value = (await createKey(base.db, options.key)).key;
    app.value = await startTestApp(base.db, options);
  }, options.timeout);
  afterAll(async () => {
    await app.value?.close();
  });
  const fetch = (path: string, init?: RequestInit) => app.get().fetch(path, init);
  return {
    get database() {
      return base.database;
    },
    get db() {
      return base.db;
    },
    get app() {
      return app.get();
    },
    get url() {
      return app.get().url;
    },
    get deps() {
      return app.get().deps;
    },
    get key() {
      return key.get();
    },
    fetch,
    keyed: (path, init = {}) =>
      fetch(path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), 'X-Api-Key': key.get() },
      }),
  };
}

/**
 * Registers one afterAll that closes what the suite opened, the last opened first, and returns
 * the function that records each thing as it is opened (with how to close it, if not `close()`).
 *
 * @example
 * const closing = closeAfterAll();
 * beforeAll(async () => {
 *   receiver = closing(await startReceiver());
 *   scratch = closing(await createScratchDatabase(url), (s) => s.drop());
 * });
 */
export function closeAfterAll() {
  const opened: (() => unknown)[] = [];
  afterAll(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });
  function closing<T extends { close(): unknown }>(resource: T): T;
  function closing<T>(resource: T, close: (resource: T) => unknown): T;
  function closing<T>(resource: T, close?: (resource: T) => unknown): T {
    opened.push(() => (close ? close(resource) : (resource as { close(): unknown }).close()));
    return resource;
  }
  return closing;
}

/** Asserts that `res` is a 400 `invalid_request` problem whose errors name `field`. */
export async function expectInvalid(res: Response, field: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json<{ code: string; status: number; errors: { path: string }[] }>();
  expect(body.code).toBe('invalid_request');
  expect(body.status).toBe(400);
  expect(body.errors.map((e) => e.path)).toContain(field);
}

/** A request made with `key`, carrying `body` as JSON when there is one. */
export const keyCall = (key: string, method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'X-Api-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

const sha256Source = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;

/** The CSP directives the embed page must send for `html`: its own inline scripts and style, hashed. */
export function embedCsp(html: string): string[] {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => sha256Source(m[1]!));
  const style = html.match(/<style>([\s\S]*?)<\/style>/)![1]!;
  return [
    "default-src 'none'",
    `script-src ${scripts.join(' ')}`,
    `style-src ${sha256Source(style)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ];
}

/** One dispatcher pass over `db` as of now, with the real fetch and a log kept for assertions. */
export const dispatchOnce = (db: Db, config: Config, options: DispatchOptions = {}) =>
  dispatchWebhooks(
    { db, config, now: () => new Date(), fetch: globalThis.fetch.bind(globalThis), log: memoryLogger() },
    options,
  );

/**
 * Registers a disabled RSS source called `name` through the admin API and pushes `feed` to it,
 * as an operator would; answers the ingest's status and body.
 */
export async function pushRssFeed(app: Pick<TestApp, 'fetch'>, name: string, url: string, feed: string) {
  const created = await app.fetch(
    '/api/v1/admin/sources',
    admin(json({ connector: 'rss', name, url, tier: 'core', enabled: false })),
  );
  expect(created.status).toBe(201);
  const res = await app.fetch(
    `/api/v1/admin/sources/rss/ingest?source=${encodeURIComponent(name)}`,
    admin({ method: 'POST', headers: { 'Content-Type': 'application/rss+xml' }, body: feed }),
  );
  return { status: res.status, body: await res.json() };
}

/**
 * Moves every signal's ingest time and every webhook's cursor `seconds` into the past, keeping
 * their order, as if that long had passed: the dispatcher then finds the signals past its
 * settling margin (1 s) without the test waiting it out on the real clock.
 */
export async function ageIngests(db: Db, seconds = 2): Promise<void> {
  const back = sql`make_interval(secs => ${seconds})`;
  await db.execute(sql`UPDATE signals SET ingested_at = ingested_at - ${back}`);
  await db.execute(sql`UPDATE webhooks SET cursor_ingested_at = cursor_ingested_at - ${back},
    pending_until_ingested_at = pending_until_ingested_at - ${back}`);
}
