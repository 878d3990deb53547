import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { schema, type Database, type DatabaseHandle } from './client';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Embedded PGlite: on disk under `dataDir`, or in memory when it is omitted (tests). */
export async function pgliteDatabase(dataDir?: string): Promise<DatabaseHandle> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs the `city` partial match (migration 0003); Neon and Postgres ship it too.
  const client = new PGlite({ dataDir, extensions: { pg_trgm } });
  await client.waitReady;
  const db = drizzlePglite({ client, schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, close: () => client.close() };
}

/** A real Postgres through node-postgres; migrations are applied when `migrate` is set. */
export async function postgresDatabase(
  connectionString: string,
  options: { migrate?: boolean; max?: number } = {},
): Promise<DatabaseHandle> {
  // A bounded connect keeps requests from hanging on a database that black-holes packets.
  const pool = new pg.Pool({ connectionString, max: options.max ?? 20, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server (restart, failover, network cut) is emitted here;
  // unhandled it would crash the process. The pool discards it and the next query reconnects.
  pool.on('error', () => {});
  const db = drizzlePg({ client: pool, schema });
  if (options.migrate) await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, close: () => pool.end() };
}
