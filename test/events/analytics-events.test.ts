import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compoundCrises } from '../../src/analytics/crises';
import { trending } from '../../src/analytics/trending';
import { queryRows, type DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { testPglite } from '../support/harness';
import { withEventsApp, type EventItem } from './seed-events';

const NOW = new Date('2026-11-21T12:00:00Z');
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

/**
 * A blackout told by five outlets (one event, five signals) and two single reports, all in the
 * brief's window: counted by signals the blackout would dominate five to one.
 */
const ITEMS: EventItem[] = [
  ...[1, 2, 3, 4, 5].map((n) => ({
    name: `blackout${n}`,
    event: 'blackout',
    layer: 'cyber',
    score: 5 + n / 2,
    country: 'EE',
    published: ago(n / 2),
  })),
  { name: 'riot', event: 'riot', layer: 'political', score: 6, country: 'KE', published: ago(1) },
  { name: 'spill', event: 'spill', layer: 'disaster', score: 4, country: 'NG', published: ago(2) },
];

describe('analytics count events, not echoes', () => {
  const { app, nameOf } = withEventsApp(ITEMS, 'analytics', {
    key: 'pro',
    timeout: 180_000,
    deps: { now: () => NOW },
  });

  it('the brief cites one signal per event, its strongest, and counts events beside signals', async () => {
    const res = await app.fetch('/api/v1/brief', { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(200);
    const brief = await res.json<{
      headline: string;
      executive_summary: string;
      signal_ids: string[];
      numbers: { signal_count: number; event_count: number };
    }>();
    expect(brief.numbers).toMatchObject({ signal_count: 7, event_count: 3 });
    expect(brief.executive_summary).toContain('3 events were reported in 7 signals');
    const cited = brief.signal_ids.map((id) => nameOf.get(id));
    // The blackout's weaker reports are echoes: only blackout5 (7.5) may stand for it.
    expect(cited.filter((name) => name?.startsWith('blackout'))).toEqual(['blackout5']);
    expect(cited[0]).toBe('blackout5');
  });
});

/**
 * Trending and compound crises read the hourly aggregates that ingest keeps: a story ten outlets
 * tell, linked at ingest into one event, must raise their counts by one, not ten.
 */
describe('trending and compound crises count an event told by ten outlets once', () => {
  let database: DatabaseHandle;
  const report = (host: string, title: string, layer: string, score: number, hoursAgo: number) => ({
    threat_layer: layer,
    significance_score: score,
    signal_valence: 'crisis',
    title,
    content_display: `${title}.`,
    country_codes: ['EE'],
    published_at: ago(hoursAgo),
    source_url: `https://${host}/ten-outlets/${hoursAgo}`,
    source: { name: host },
  });
  const estonia = async () => {
    const trend = await trending(database.db, NOW);
    const [acute] = await compoundCrises(database.db, NOW);
    return {
      country: trend.countries.find((c) => c.country_code === 'EE')?.recent_count,
      military: trend.layers.find((l) => l.threat_layer === 'military')?.recent_count,
      crisis: acute!.data.find((c) => c.country_code === 'EE'),
    };
  };

  beforeAll(async () => {
    database = await testPglite();
    const result = await ingestSignals(
      database.db,
      [
        report('a.example', 'Ransomware halts Tallinn port logistics', 'cyber', 7, 5),
        report('b.example', 'Phishing wave empties Estonian savings accounts', 'cyber', 7, 4.5),
        report('c.example', 'Hackers deface ministry portal with propaganda', 'cyber', 7, 4),
        report('d.example', 'Troops mass near Narva border crossing', 'military', 7, 3.5),
        report('e.example', 'Naval drills close Baltic shipping lane', 'military', 7, 3),
      ],
      { now: NOW },
    );
    expect(result.accepted).toBe(5);
  }, 180_000);
  afterAll(async () => {
    await database?.close();
  });

  it('ten reports of one strike add one event to trending and complete a crisis as one event', async () => {
    // Five distinct events; military has two, one short of making a crisis layer.
    expect(await estonia()).toEqual({ country: 5, military: 2, crisis: undefined });

    const story = 'Drone strike damages Tartu air base hangars';
    const ten = Array.from({ length: 10 }, (_, n) =>
      // The first report founds the event; the strongest (9) comes later.
      report(`outlet${n}.example`, story, 'military', n === 6 ? 9 : 6, 2 - n / 10),
    );
    expect((await ingestSignals(database.db, ten, { now: NOW })).accepted).toBe(10);
    const [linked] = await queryRows<{ events: number }>(
      database.db,
      sql`SELECT count(DISTINCT event_id)::int AS events FROM signals WHERE source_url LIKE '%/ten-outlets/%'
            AND threat_layer = 'military' AND published_at > ${ago(2.5)}::timestamptz`,
    );
    expect(linked!.events).toBe(1);

    const after = await estonia();
    expect(after).toMatchObject({ country: 6, military: 3 });
    expect(after.crisis!.layers).toEqual([
      // Events: two single reports and the strike's founder (6), (7 + 7 + 6) / 3 = 6.67; the
      // strike's strongest report is its severity: max 9, so 0.6·6.67 + 0.4·9 = 7.6.
      expect.objectContaining({
        threat_layer: 'military',
        signal_count: 3,
        crisis_count: 3,
        mean_score: 6.67,
        max_score: 9,
        severity: 7.6,
      }),
      expect.objectContaining({ threat_layer: 'cyber', signal_count: 3, crisis_count: 3, max_score: 7 }),
    ]);
  });
});
