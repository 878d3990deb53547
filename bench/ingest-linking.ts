/**
 * Ingest of 1,000 news items into the loaded database (bench/run.ts, `BENCH_ONLY=ingest`): the
 * whole pipeline (validation, entities, insert, anomalies, event linking, aggregates), and the
 * linking step alone on 1,000 other items, each in a transaction that is rolled back, so a rerun
 * measures the same database. Items per second of both, and of the ingest without its linking.
 * The ingest runs twice: the first run (`cold`) also pays what a process does once (building the
 * gazetteer, compiling the schemas, the JIT's first passes); the second is the figure, the
 * steady state of a server that ingests all day, as the endpoint runs measure after a warm-up.
 */
import type { Database } from '../src/db/client';
import { ingestSignals } from '../src/ingest/pipeline';
import { headline, linkThroughput } from './events-linking';

const OUTLETS = 20;

export interface IngestFigures {
  items: number;
  accepted: number;
  /** Items per second of the whole ingest, warm (the second run). */
  ingest: number;
  /** Items per second of the first run, in a process that had not ingested yet. */
  cold: number;
  /** Items per second of linking alone. */
  linking: number;
  /** Items per second of the ingest less its linking time: the pipeline as it was without events. */
  withoutLinking: number;
}

class Rollback extends Error {}

/** Runs `work` in a transaction that is always rolled back; returns what it returned. */
export async function rolledBack<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  let out: T | undefined;
  await db
    .transaction(async (tx) => {
      out = await work(tx);
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  return out!;
}

/**
 * The bench's batch of `count` news items published before `now`: stories told by several outlets
 * (every tenth item starts one; nine more retell it in their words), as a poll of twenty feeds
 * brings them.
 */
export function benchItems(now: Date, count: number) {
  const run = now.getTime().toString(36);
  return Array.from({ length: count }, (_, i) => {
    const story = Math.floor(i / 10);
    return {
      threat_layer: 'military',
      significance_score: 4 + (story % 5),
      signal_valence: 'crisis',
      title: `${headline(story)}${i % 10 === 0 ? '' : ` (${['update', 'report', 'live'][i % 3]})`}`,
      content_display: `Officials in Kharkiv said the ${headline(story).toLowerCase()} after the night of ${story}.`,
      country_codes: ['UA'],
      published_at: new Date(now.getTime() - (story % 48) * 3_600_000 - (i % 10) * 60_000).toISOString(),
      source_url: `https://bench-ingest.example.com/${run}/${i}`,
      source: { name: `Bench Outlet ${i % OUTLETS}` },
    };
  });
}

export async function benchIngest(db: Database, now: Date, count = 1_000): Promise<IngestFigures> {
  const items = benchItems(now, count);
  const timed = () =>
    rolledBack(db, async (tx) => {
      const started = performance.now();
      const result = await ingestSignals(tx, items, { now });
      return { ms: performance.now() - started, accepted: result.accepted };
    });
  const cold = await timed();
  const { ms, accepted } = await timed();
  const linking = await rolledBack(db, (tx) => linkThroughput(tx, count, now));
  const ingest = count / (ms / 1000);
  const linkingMs = (count / linking) * 1000;
  return {
    items: count,
    accepted,
    ingest,
    cold: count / (cold.ms / 1000),
    linking,
    withoutLinking: count / (Math.max(ms - linkingMs, 1) / 1000),
  };
}
