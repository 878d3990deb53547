/**
 * `tsx bench/events-linking-scale.ts [sizes…]`: event linking throughput on a real Postgres
 * (TEST_DATABASE_URL's server, in a scratch database dropped at the end) as the stored events
 * grow, e.g. 2,000 / 20,000 / 200,000. With per-item work bounded the items/s stay flat.
 * Also prints the plan of one candidate lookup at the largest size.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { postgresDatabase } from '../src/db/node';
import { explainLookup, linkThroughput, seedCandidateEvents } from './events-linking';

const NOW = new Date('2026-11-22T06:00:00Z');
const sizes = (process.argv.slice(2).length ? process.argv.slice(2) : ['2000', '20000', '200000']).map(
  Number,
);
const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const name = `events_scale_${process.pid}`;
const admin = new URL(url);
admin.pathname = '/postgres';

async function onAdmin(statement: string) {
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

await onAdmin(`CREATE DATABASE "${name}"`);
url.pathname = `/${name}`;
try {
  const handle = await postgresDatabase(url.toString(), { migrate: true, statementTimeoutMs: 0 });
  let stored = 0;
  for (const events of sizes) {
    await seedCandidateEvents(handle.db, events - stored, NOW);
    stored = events;
    await handle.db.execute(sql`ANALYZE events`);
    const perSecond = await linkThroughput(handle.db, 1_000, NOW);
    console.log(
      `event linking, 1,000 news items, ${events.toLocaleString('en')} stored events: ${perSecond.toFixed(0)} items/s`,
    );
  }
  console.log(
    `\nCandidate lookup of one item, ${stored.toLocaleString('en')} stored events:\n${await explainLookup(handle.db, 1, NOW)}`,
  );
  await handle.close();
} finally {
  await onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
