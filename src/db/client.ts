import { fillPlaceholders, sql, type GetColumnData, type SQL, type Table } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import * as schema from './schema';

export { schema };

/** Any drizzle Postgres database over our schema: PGlite, node-postgres or Neon. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A database handle plus the way to release it. */
const ROOT = Symbol('root database');

/** A per-request view of `root` (it shares root's connection); `rootDatabase` maps it back. */
export const databaseView = (root: Database, properties: PropertyDescriptorMap): Database =>
  Object.create(root, { ...properties, [ROOT]: { value: rootDatabase(root) } }) as Database;

/** The shared database behind a per-request view (itself when it is not a view). */
export const rootDatabase = (db: Database): Database => (db as { [ROOT]?: Database })[ROOT] ?? db;

export interface DatabaseHandle {
  db: Database;
  close(): Promise<void>;
}

/**
 * A row of raw SQL (`queryRows`) selecting the columns `K` of `T`, derived from the schema: keyed by
 * each column's SQL name, typed by its column, timestamps as Date or text (the drivers differ).
 *
 * @example type Row = SqlRow<typeof signals, 'id' | 'publishedAt'>; // { id: string; published_at: Date | string }
 */
export type SqlRow<T extends Table, K extends keyof T['_']['columns']> = {
  [P in K as T['_']['columns'][P]['_']['name']]: RawValue<GetColumnData<T['_']['columns'][P]>>;
};
type RawValue<V> = V extends Date ? Date | string : V;

/** Runs a raw SQL statement and returns its rows, whatever the driver's result shape. */
export async function queryRows<T>(db: Pick<Database, 'execute'>, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

/** SQL text compiled once by drizzle; its params may hold named `sql.placeholder`s. */
export interface Statement {
  sql: string;
  params: unknown[];
}

const dialect = new PgDialect();

/** Compiles a drizzle query to text once, so a hot path can reuse it with fresh values. */
export const compileStatement = (query: SQL): Statement => dialect.sqlToQuery(query);

/** `statement` with its placeholders filled from `values`: the exact text and parameters sent. */
export const boundStatement = (statement: Statement, values: Record<string, unknown>): Statement => ({
  sql: statement.sql,
  params: fillPlaceholders(statement.params, values),
});

/** What every driver we use (node-postgres, Neon, PGlite) offers as its own client. */
interface DriverClient {
  query(text: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a bound statement through the driver's own client (`db.$client`), with the driver's
 * default type parsing: for hot statements whose columns need no mapping, where drizzle's
 * build and execute path cost more per request than the query's own round trip.
 */
export async function runStatement<T>(db: Database, { sql, params }: Statement): Promise<T[]> {
  const { rows } = await (db as unknown as { $client: DriverClient }).$client.query(sql, params);
  return rows as T[];
}

/** How long one statement may run before Postgres cancels it (57014), unless configured. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;

/** Ingest transactions may wait longer than reads (on hot aggregate rows under load). */
const WRITE_STATEMENT_TIMEOUT = '60s';

/**
 * Raises the statement timeout to `WRITE_STATEMENT_TIMEOUT` for the rest of transaction `tx`
 * (never lowers it, and keeps "no limit"): the 5 s budget is for reads, which a user waits for.
 */
export async function allowWriteTime(tx: Pick<Database, 'execute'>): Promise<void> {
  await tx.execute(sql`SELECT set_config('statement_timeout',
    CASE WHEN current_setting('statement_timeout')::interval = interval '0'
           OR current_setting('statement_timeout')::interval >= ${WRITE_STATEMENT_TIMEOUT}::interval
         THEN current_setting('statement_timeout') ELSE ${WRITE_STATEMENT_TIMEOUT} END, true)`);
}

/** A node-postgres style pool (pg's, or the Neon driver's fork of it). */
interface EventedPool {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(
    event: 'connect',
    listener: (client: { on(event: 'error', listener: (error: Error) => void): unknown }) => void,
  ): unknown;
}

/**
 * Keeps a connection the server ends (restart, failover, `pg_terminate_backend`) from killing
 * the process: the driver emits it as an 'error' event, which throws when nobody listens. The
 * pool listens only while a client is idle; a client checked out for a transaction has no
 * listener, so every client gets one of its own for life. Nothing is lost by ignoring the
 * event: the statement in flight rejects with the same error (answered 503), and the pool
 * discards the broken client on release.
 */
export function survivePoolErrors<P extends EventedPool>(pool: P): P {
  const ignore = () => {};
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}

/** Options every driver adapter takes. `statementTimeoutMs` 0 means no limit. */
export interface DatabaseOptions {
  statementTimeoutMs?: number;
}

/**
 * Neon serverless Postgres over WebSocket. Workers may not share a pool between requests,
 * so the API Worker opens one per request and closes it in `waitUntil`. The statement
 * timeout travels in the startup message (no extra round trip per connection).
 */
export function neonDatabase(connectionString: string, options: DatabaseOptions = {}): DatabaseHandle {
  const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = survivePoolErrors(
    new Pool({ connectionString, ...(timeout > 0 ? { statement_timeout: timeout } : {}) }),
  );
  return {
    db: drizzle({ client: pool, schema }),
    close: () => pool.end(),
  };
}
