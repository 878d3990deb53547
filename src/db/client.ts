import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import * as schema from './schema';

export { schema };

/** Any drizzle Postgres database over our schema: PGlite, node-postgres or Neon. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A database handle plus the way to release it. */
export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

/** Runs a raw SQL statement and returns its rows, whatever the driver's result shape. */
export async function queryRows<T>(db: Pick<Database, 'execute'>, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Neon serverless Postgres over WebSocket. Workers may not share a pool between requests,
 * so the API Worker opens one per request and closes it in `waitUntil`.
 */
export function neonDatabase(connectionString: string): DatabaseHandle {
  const pool = new Pool({ connectionString });
  return {
    db: drizzle({ client: pool, schema }) as unknown as Database,
    close: () => pool.end(),
  };
}
