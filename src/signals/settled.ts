import { sql, type SQL } from 'drizzle-orm';

/**
 * The time below which every committed change to `signals` is final: the start of the oldest
 * other open transaction (or now, less `settleMs`). Ingest stamps `ingested_at` and `updated_at`
 * when its transaction starts, so a transaction that commits late writes rows older than rows
 * already visible; a reader that only advances below this bound never leaves one of them behind
 * its cursor (the webhook dispatcher and the live stream both read this way). Transactions open
 * for over 15 minutes are not waited for, so one stuck session (a forgotten psql) cannot stop
 * every delivery; ingest transactions are far shorter.
 */
export const settledBound = (settleMs: number): SQL => sql`least(
        now() - make_interval(secs => ${settleMs / 1000}),
        (select min(a.xact_start) from pg_stat_activity a
          where a.datname = current_database() and a.pid <> pg_backend_pid()
            and a.backend_type = 'client backend' and a.xact_start > now() - interval '15 minutes')
      )`;
