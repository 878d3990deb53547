import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compoundCrises } from '../../src/analytics/crises';
import { compoundCrisis, rankTrending } from '../../src/analytics/formulas';
import { platformStats } from '../../src/analytics/stats';
import { trending } from '../../src/analytics/trending';
import { queryRows, type DatabaseHandle } from '../../src/db/client';
import { moveSignalContribution, readSignalFacts, rebuildAggregates } from '../../src/ingest/aggregates';
import { ingestSignals } from '../../src/ingest/pipeline';
import { retractSignal } from '../../src/signals/sync';
import { backends } from '../support/harness';

/** Not on an hour: every window read from the buckets has partial hours at both ends. */
const NOW = new Date('2026-11-22T12:37:20Z');
const HOUR = 3_600_000;
const LAYERS = ['military', 'cyber', 'health', 'disaster'];
const COUNTRIES = [['UA'], ['UA', 'PL'], ['SD'], ['FR', 'UA'], [], ['SD', 'TD']];
const LANGUAGES = ['en', 'fr', undefined];

interface Item {
  threat_layer: string;
  significance_score: number;
  signal_valence: string;
  content_display: string;
  country_codes: string[];
  language?: string;
  published_at: string;
  source_url: string;
  source: { name: string };
}

/** Made-up words from a seed, so no two fixture stories share their headline words or letters. */
function words(seed: number, count = 4): string {
  let x = (seed * 2_654_435_761 + 97) >>> 0;
  const next = (n: number) => ((x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0), (x >>> 8) % n);
  return Array.from({ length: count }, () =>
    Array.from({ length: 3 }, () => 'bcdfghjklmnprstvz'[next(17)]! + 'aeiou'[next(5)]!).join(''),
  ).join(' ');
}

/** Every tenth item retells the item before it from another outlet ten minutes later: an echo. */
const isEcho = (i: number) => i % 10 === 9;

/**
 * 600 signals spread over 35 days (denser in the last day), in a fixed pseudo-random pattern:
 * distinct stories, each its own event, but for the echoes (`isEcho`).
 */
function items(): Item[] {
  const out: Item[] = [];
  for (let i = 0; i < 600; i++) {
    const hoursAgo = i < 200 ? ((i * 37) % 30) / 1.1 : ((i * 7919) % 840) + ((i * 13) % 60) / 60;
    if (isEcho(i)) {
      const told = out[i - 1]!;
      out.push({
        ...told,
        significance_score: 3 + ((i * 31) % 70) / 10,
        published_at: new Date(Date.parse(told.published_at) + 10 * 60_000).toISOString(),
        source_url: `https://echo.example/aggregates/${i}`,
        source: { name: 'Echo Post' },
      });
      continue;
    }
    out.push({
      threat_layer: LAYERS[i % LAYERS.length]!,
      significance_score: 3 + ((i * 31) % 70) / 10,
      signal_valence: i % 3 === 0 ? 'update' : 'crisis',
      content_display: words(i),
      country_codes: COUNTRIES[i % COUNTRIES.length]!,
      language: LANGUAGES[i % LANGUAGES.length],
      published_at: new Date(NOW.getTime() - hoursAgo * HOUR).toISOString(),
      source_url: `https://wire.example/aggregates/${i}`,
      source: { name: i % 2 ? 'Odd Wire' : 'Even Wire' },
    });
  }
  return out;
}

/**
 * What each answer must be, computed from the items by hand rather than by any SQL. `founders`
 * (source urls) are the items that found an event, as the linker grouped them (test/events/ pins
 * that): trending and crises count those, not their echoes; a layer's max is over every item.
 */
function expected(list: Item[], founders: Set<string>) {
  const t = (x: Item) => Date.parse(x.published_at);
  const within = (x: Item, start: number, end: number) => t(x) > start && t(x) <= end;
  const now = NOW.getTime();
  const count = <K>(xs: Item[], key: (x: Item) => K) => {
    const m = new Map<K, number>();
    for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
    return m;
  };
  const day = list.filter((x) => within(x, now - 24 * HOUR, now));
  const recentStart = now - 6 * HOUR;
  const baseStart = recentStart - 7 * 24 * HOUR;
  const events = list.filter((x) => founders.has(x.source_url));
  const trend = (key: (x: Item) => string | undefined) => {
    const keys = new Set(events.filter((x) => within(x, baseStart, now)).map(key));
    keys.delete(undefined);
    return rankTrending(
      [...keys].map((k) => ({
        key: k!,
        recent: events.filter((x) => key(x) === k && within(x, recentStart, now)).length,
        baseline: events.filter((x) => key(x) === k && within(x, baseStart, recentStart)).length,
      })),
    );
  };
  const crises = (days: number) => {
    const inWindow = list.filter((x) => within(x, now - days * 24 * HOUR, now));
    const countries = new Set(inWindow.flatMap((x) => x.country_codes));
    return [...countries]
      .map((country) => {
        const layers = LAYERS.map((layer) => {
          const xs = inWindow.filter((x) => x.threat_layer === layer && x.country_codes.includes(country));
          const firsts = xs.filter((x) => founders.has(x.source_url));
          return {
            layer,
            signalCount: firsts.length,
            scoreSum: firsts.reduce((s, x) => s + x.significance_score, 0),
            scoreMax: Math.max(0, ...xs.map((x) => x.significance_score)),
            crisisCount: firsts.filter((x) => x.signal_valence === 'crisis').length,
          };
        });
        return { country, crisis: compoundCrisis(layers) };
      })
      .filter((c) => c.crisis !== null)
      .map((c) => [c.country, c.crisis!.compositeSeverity] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  };
  return {
    signals: {
      total: list.length,
      last_24h: day.length,
      last_7d: list.filter((x) => within(x, now - 7 * 24 * HOUR, now)).length,
    },
    dayLayers: Object.fromEntries(count(day, (x) => x.threat_layer)),
    languages: Object.fromEntries(count(list, (x) => x.language ?? 'und')),
    trendingLayers: trend((x) => x.threat_layer),
    trendingCountries: trend((x) => x.country_codes[0]),
    acute: crises(7),
    chronic: crises(30),
  };
}

/**
 * Same countries in the same order, severities equal to the cent: a float sum added in another
 * order can land a half-cent tie on the other side when rounded.
 */
function expectSameCrises(got: (readonly [string, number])[], want: (readonly [string, number])[]) {
  expect(got.map(([country]) => country)).toEqual(want.map(([country]) => country));
  got.forEach(([, severity], i) => expect(Math.abs(severity - want[i]![1])).toBeLessThanOrEqual(0.0100001));
}

describe.each(backends)('analytics read from the hourly aggregates on $name', (backend) => {
  let database: DatabaseHandle;
  let list: Item[];
  let founders: Set<string>;

  const answers = async () => {
    const db = database.db;
    const stats = await platformStats(db, NOW);
    const trend = await trending(db, NOW);
    const [acute, chronic] = await compoundCrises(db, NOW);
    const pairs = (w: typeof acute) => w!.data.map((c) => [c.country_code, c.composite_severity] as const);
    return {
      signals: stats.signals,
      dayLayers: Object.fromEntries(
        stats.layers.filter((l) => l.last_24h > 0).map((l) => [l.threat_layer, l.last_24h]),
      ),
      languages: Object.fromEntries(stats.languages.by_language.map((l) => [l.name, l.signal_count])),
      trendingLayers: trend.layers.map((e) => ({
        key: e.threat_layer,
        recent: e.recent_count,
        baseline: e.baseline_count,
        expected: e.expected_count,
        spikeRatio: e.spike_ratio,
      })),
      trendingCountries: trend.countries.map((e) => ({
        key: e.country_code,
        recent: e.recent_count,
        baseline: e.baseline_count,
        expected: e.expected_count,
        spikeRatio: e.spike_ratio,
      })),
      acute: pairs(acute),
      chronic: pairs(chronic),
    };
  };

  /** Every aggregate row, in a fixed order, to compare with a rebuild from scratch. */
  const tables = async () => ({
    hourly: await queryRows(
      database.db,
      sql`SELECT bucket, region, threat_layer, signal_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count, anomaly_count, event_count FROM signal_hourly ORDER BY 1, 2, 3`,
    ),
    country: await queryRows(
      database.db,
      sql`SELECT bucket, country, threat_layer, signal_count, primary_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count,
            event_count, primary_event_count, event_crisis_count, round(event_score_sum::numeric, 6)::float8 AS event_score_sum
          FROM signal_country_hourly ORDER BY 1, 2, 3`,
    ),
    daily: await queryRows(
      database.db,
      sql`SELECT bucket, country, threat_layer, signal_count, primary_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count,
            event_count, primary_event_count, event_crisis_count, round(event_score_sum::numeric, 6)::float8 AS event_score_sum
          FROM signal_country_daily ORDER BY 1, 2, 3`,
    ),
    totals: await queryRows(database.db, sql`SELECT * FROM signal_totals ORDER BY 1, 2`),
    coverage: await queryRows(
      database.db,
      sql`SELECT source_id, region, threat_layer, signal_count FROM source_coverage ORDER BY 1, 2, 3`,
    ),
    sources: await queryRows(database.db, sql`SELECT name, signal_count FROM sources ORDER BY 1`),
  });

  beforeAll(async () => {
    database = await backend.open();
    list = items();
    for (let i = 0; i < list.length; i += 200) {
      expect((await ingestSignals(database.db, list.slice(i, i + 200))).rejected).toBe(0);
    }
    const rows = await queryRows<{ source_url: string }>(
      database.db,
      sql`SELECT source_url FROM signals WHERE id = event_id`,
    );
    founders = new Set(rows.map((r) => r.source_url));
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  it('stats, trending and compound crises equal the counts made by hand, for windows off the hour', async () => {
    // Every echo joined the story it retells; the distinct stories stand alone (bar a rare
    // likeness the linker may find among 540 made-up headlines).
    expect(list.filter((x, i) => isEcho(i) && founders.has(x.source_url))).toEqual([]);
    expect(founders.size).toBeGreaterThan(530);
    const want = expected(list, founders);
    const got = await answers();
    expect(got.signals).toEqual(want.signals);
    expect(got.dayLayers).toEqual(want.dayLayers);
    expect(got.languages).toEqual(want.languages);
    expect(got.trendingLayers).toEqual(want.trendingLayers);
    expect(got.trendingCountries).toEqual(want.trendingCountries);
    expectSameCrises(got.acute, want.acute);
    expectSameCrises(got.chronic, want.chronic);
    expect(want.acute.length).toBeGreaterThan(0);
  });

  it('what ingest keeps equals a rebuild from the signals table', async () => {
    const kept = await tables();
    await rebuildAggregates(database.db);
    expect(await tables()).toEqual(kept);
  });

  it('a revision and a retraction move one signal each, exactly as a rebuild would count them', async () => {
    const [revised, retracted] = await queryRows<{ id: string; source_url: string }>(
      database.db,
      sql`SELECT id, source_url FROM signals WHERE source_url IN ('https://wire.example/aggregates/1', 'https://wire.example/aggregates/2') ORDER BY source_url`,
    );
    await database.db.transaction(async (tx) => {
      const before = await readSignalFacts(tx, revised!.id);
      // A revision rewrites the source's own score too (signalColumns), which the aggregates sum.
      await tx.execute(sql`
        UPDATE signals SET threat_layer = 'health', significance_score = 9.9, base_score = 9.9, country_codes = ARRAY['SD', 'UA'],
          region = 'Sub-Saharan Africa', language = 'ar', published_at = ${new Date(NOW.getTime() - 30 * 60_000).toISOString()}::timestamptz
        WHERE id = ${revised!.id}`);
      await moveSignalContribution(tx, before, await readSignalFacts(tx, revised!.id));
    });
    await database.db.transaction(async (tx) => {
      const before = await readSignalFacts(tx, retracted!.id);
      expect(await retractSignal(tx, retracted!.id, NOW)).toBe(true);
      const after = await readSignalFacts(tx, retracted!.id);
      expect(after).toBeNull();
      await moveSignalContribution(tx, before, after);
    });
    const moved = await tables();
    await rebuildAggregates(database.db);
    expect(await tables()).toEqual(moved);

    // And the answers follow: the hand count without the retracted item, with the revised one.
    const index = (url: string) => list.findIndex((x) => x.source_url === url);
    const now = [...list];
    now[index(revised!.source_url)] = {
      ...now[index(revised!.source_url)]!,
      threat_layer: 'health',
      significance_score: 9.9,
      country_codes: ['SD', 'UA'],
      language: 'ar',
      published_at: new Date(NOW.getTime() - 30 * 60_000).toISOString(),
    };
    now.splice(index(retracted!.source_url), 1);
    const want = expected(now, founders);
    const got = await answers();
    expect(got.signals).toEqual(want.signals);
    expect(got.languages).toEqual(want.languages);
    expect(got.trendingCountries).toEqual(want.trendingCountries);
    expectSameCrises(got.acute, want.acute);
  });

  it('a merge takes the merged-away founder out of the event counts, exactly as a rebuild would', async () => {
    const glide = 'FL-2026-000777-MYT';
    const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR).toISOString();
    const story = (host: string, title: string, hoursAgo: number, score: number): Item => ({
      threat_layer: 'disaster',
      significance_score: score,
      signal_valence: 'crisis',
      content_display: title,
      country_codes: ['YT', 'KM'],
      published_at: at(hoursAgo),
      source_url: `https://${host}/merge/${hoursAgo}`,
      source: { name: host },
    });
    const countsOfYT = () =>
      queryRows<{ signals: number; events: number; primary_events: number }>(
        database.db,
        sql`SELECT sum(signal_count)::int AS signals, sum(event_count)::int AS events,
              sum(primary_event_count)::int AS primary_events
            FROM signal_country_hourly WHERE country = 'YT'`,
      );
    await ingestSignals(database.db, [
      story('wire.example', `Floods in Orvale district, GLIDE ${glide}`, 30, 6),
    ]);
    const newer = story('times.example', 'Relief convoys reach flooded valleys', 20, 7);
    await ingestSignals(database.db, [newer], {
      externalIds: new Map([[newer.source_url, ['eonet:EONET_777']]]),
    });
    // Two events so far: two founders in two hours.
    expect(await countsOfYT()).toEqual([{ signals: 2, events: 2, primary_events: 2 }]);
    const bridge = story('daily.example', `Orvale floods update (GLIDE ${glide})`, 2, 5);
    await ingestSignals(database.db, [bridge], {
      externalIds: new Map([[bridge.source_url, ['eonet:EONET_777']]]),
    });
    const [merged] = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM events WHERE merged_into IS NOT NULL`,
    );
    expect(merged!.n).toBe(1);
    // One event told three times: the newer event's founder is an echo of the older one now.
    expect(await countsOfYT()).toEqual([{ signals: 3, events: 1, primary_events: 1 }]);
    const kept = await tables();
    await rebuildAggregates(database.db);
    expect(await tables()).toEqual(kept);
  });
});
