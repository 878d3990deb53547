/**
 * Linking throughput (bench/units.ts): links 1,000 news items, in one ingest-sized batch,
 * against a store of stored candidate events that share their words and days, so every item
 * meets a full candidate set. Returns items per second; with per-item work bounded, the figure
 * stays flat as the stored events grow.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client';
import { candidateQuery, linkSignals, type CandidateLookup, type LinkInput } from '../src/events/link';
import { featuresOf, termsOf, headlineWords } from '../src/events/match';
import { COMPATIBLE_LAYERS, NEWS } from '../src/events/rules';

const STEMS = ['Varna', 'Orva', 'Tessa', 'Marlo', 'Kestre', 'Dunme', 'Halvi', 'Ostra', 'Brenn', 'Calde'];
const ENDS = ['grad', 'vale', 'ly', 'wick', 'ford', 'mere', 'vik', 'burg', 'ton', 'field', 'holm', 'port'];
// 120 made-up places: a busy region's towns, so stored events share words and days with the new items.
const PLACES = STEMS.flatMap((a) => ENDS.map((b) => `${a}${b}`));
const WHAT = [
  'drone strike on fuel depot',
  'shelling of rail hub',
  'missile attack on power plant',
  'raid on border post',
];

export const headline = (i: number) =>
  `${WHAT[i % WHAT.length]} near ${PLACES[i % PLACES.length]} district ${i % 97} leaves damage, officials say`;

/** Stores `count` events (rows only: their members are not needed to be candidates). */
export async function seedCandidateEvents(db: Database, count: number, at: Date): Promise<void> {
  for (let start = 0; start < count; start += 2_000) {
    const rows = Array.from({ length: Math.min(2_000, count - start) }, (_, k) => {
      const i = start + k;
      const text = {
        title: headline(i),
        summary: 'Regional officials reported damage overnight.',
        places: [],
        actors: [],
      };
      const t = at.getTime() - (i % 72) * 3_600_000;
      return {
        id: crypto.randomUUID(),
        first: new Date(t).toISOString(),
        terms: termsOf(headlineWords(featuresOf(text)), t, t, null),
        signature: { texts: [text] },
      };
    });
    await db.execute(sql`
      INSERT INTO events (id, threat_layer, country_codes, first_seen_at, last_seen_at, max_score, signature, terms)
      SELECT v.id, 'military', ARRAY['UA'], v.first, v.first, 5, v.signature, v.terms
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id uuid, first timestamptz, signature jsonb, terms text[])`);
    await db.execute(sql`
      INSERT INTO event_terms (term, event_id, last_seen_at)
      SELECT DISTINCT w.term, v.id, v.first
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id uuid, first timestamptz, terms text[])
      CROSS JOIN LATERAL unnest(v.terms) AS w(term)`);
  }
}

/** Links `count` new items (each a fresh wording, so most found their own event). Items per second. */
export async function linkThroughput(db: Database, count: number, at: Date): Promise<number> {
  const inputs: LinkInput[] = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    threatLayer: 'military',
    countryCodes: ['UA'],
    publishedAt: new Date(at.getTime() - (i % 48) * 3_600_000),
    title: `${headline(i * 7 + 3)} ${i}`,
    content: `Report ${i}: local officials counted damage after the night.`,
    lat: null,
    lng: null,
    externalIds: [],
    entities: [],
    baseScore: 5,
    sourceName: `Bench Outlet ${i % 20}`,
    sourceUrl: `https://bench-link.example.com/${i}`,
  }));
  const started = performance.now();
  await db.transaction(async (tx) => {
    await linkSignals(tx, inputs);
  });
  return count / ((performance.now() - started) / 1000);
}

/** The plan of the candidate lookup of `count` new items (as linkThroughput makes them), run. */
export async function explainLookup(db: Database, count: number, at: Date): Promise<string> {
  const lookups: CandidateLookup[] = Array.from({ length: count }, (_, i) => {
    const t = at.getTime() - (i % 48) * 3_600_000;
    const text = { title: `${headline(i * 7 + 3)} ${i}`, summary: '', places: [], actors: [] };
    const window = NEWS.windowDays * 86_400_000;
    return {
      i,
      keys: ['cve:CVE-2026-0001'],
      terms: termsOf(headlineWords(featuresOf(text)), t - window, t + window, null),
      layers: [...COMPATIBLE_LAYERS.military],
    };
  });
  // As linking runs it: in a transaction, without JIT (src/events/link.ts).
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('jit', 'off', true)`);
    const plan: unknown = await tx.execute(sql`EXPLAIN (ANALYZE, BUFFERS) ${candidateQuery(lookups)}`);
    return plan as { rows: { 'QUERY PLAN': string }[] };
  });
  return result.rows.map((r) => r['QUERY PLAN']).join('\n');
}
