import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import {
  DEFAULT_STATEMENT_TIMEOUT_MS,
  schema,
  survivePoolErrors,
  type Database,
  type DatabaseHandle,
  type DatabaseOptions,
} from './client';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Embedded PGlite: on disk under `dataDir`, or in memory when it is omitted (tests). The
 * statement timeout is set after the migrations, like on the other drivers; PGlite (Postgres
 * in WebAssembly, without timer signals) accepts the setting but does not enforce it.
 * `template` is a data directory dumped by `dumpPglite` after migrating: loading it takes a
 * fraction of a second where migrating takes seconds; the migrations still run, and only
 * apply what the template lacks.
 */
export async function pgliteDatabase(
  dataDir?: string,
  options: DatabaseOptions & { template?: Blob } = {},
): Promise<DatabaseHandle> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs the `city` partial match (migration 0003); Neon and Postgres ship it too.
  const client = new PGlite({ dataDir, loadDataDir: options.template, extensions: { pg_trgm } });
  await client.waitReady;
  const db = drizzlePglite({ client, schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  await client.exec(`SET statement_timeout = ${Math.max(0, Math.floor(timeout))}`);
  return { db: db as unknown as Database, close: () => client.close() };
}

/** The data directory of an open PGlite handle, uncompressed, for `pgliteDatabase`'s `template`. */
export function dumpPglite(handle: DatabaseHandle): Promise<Blob> {
  return (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
}

/**
 * A real Postgres through node-postgres; migrations are applied when `migrate` is set. Every
 * statement of the pool runs under `statementTimeoutMs` (sent in the startup message, so no
 * extra round trip); migrations run on a connection of their own without it, since building
 * an index on a large table may rightly take minutes.
 */
export async function postgresDatabase(
  connectionString: string,
  options: { migrate?: boolean; max?: number } & DatabaseOptions = {},
): Promise<DatabaseHandle> {
  if (options.migrate) {
    const migrator = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 5_000 });
    survivePoolErrors(migrator);
    try {
      await migratePg(drizzlePg({ client: migrator, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await migrator.end();
    }
  }
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  // A bounded connect keeps requests from hanging on a database that black-holes packets.
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    connectionTimeoutMillis: 5_000,
    ...(timeout > 0 ? { statement_timeout: timeout } : {}),
  });
  survivePoolErrors(pool);
  const db = drizzlePg({ client: pool, schema });
  return { db: db as unknown as Database, close: () => pool.end() };
}
