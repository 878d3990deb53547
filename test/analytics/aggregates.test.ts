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

/** 600 signals spread over 35 days (denser in the last day), in a fixed pseudo-random pattern. */
function items(): Item[] {
  const out: Item[] = [];
  for (let i = 0; i < 600; i++) {
    const hoursAgo = i < 200 ? ((i * 37) % 30) / 1.1 : ((i * 7919) % 840) + ((i * 13) % 60) / 60;
    out.push({
      threat_layer: LAYERS[i % LAYERS.length]!,
      significance_score: 3 + ((i * 31) % 70) / 10,
      signal_valence: i % 3 === 0 ? 'update' : 'crisis',
      content_display: `Aggregate fixture ${i}`,
      country_codes: COUNTRIES[i % COUNTRIES.length]!,
      language: LANGUAGES[i % LANGUAGES.length],
      published_at: new Date(NOW.getTime() - hoursAgo * HOUR).toISOString(),
      source_url: `https://wire.example/aggregates/${i}`,
      source: { name: i % 2 ? 'Odd Wire' : 'Even Wire' },
    });
  }
  return out;
}

/** What each answer must be, computed from the items by hand rather than by any SQL. */
function expected(list: Item[]) {
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
  const trend = (key: (x: Item) => string | undefined) => {
    const keys = new Set(list.filter((x) => within(x, baseStart, now)).map(key));
    keys.delete(undefined);
    return rankTrending(
      [...keys].map((k) => ({
        key: k!,
        recent: list.filter((x) => key(x) === k && within(x, recentStart, now)).length,
        baseline: list.filter((x) => key(x) === k && within(x, baseStart, recentStart)).length,
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
          return {
            layer,
            signalCount: xs.length,
            scoreSum: xs.reduce((s, x) => s + x.significance_score, 0),
            scoreMax: Math.max(0, ...xs.map((x) => x.significance_score)),
            crisisCount: xs.filter((x) => x.signal_valence === 'crisis').length,
          };
        }).filter((l) => l.signalCount > 0);
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
      sql`SELECT bucket, region, threat_layer, signal_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count, anomaly_count FROM signal_hourly ORDER BY 1, 2, 3`,
    ),
    country: await queryRows(
      database.db,
      sql`SELECT bucket, country, threat_layer, signal_count, primary_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count FROM signal_country_hourly ORDER BY 1, 2, 3`,
    ),
    daily: await queryRows(
      database.db,
      sql`SELECT bucket, country, threat_layer, signal_count, primary_count, round(score_sum::numeric, 6)::float8 AS score_sum, score_max, crisis_count FROM signal_country_daily ORDER BY 1, 2, 3`,
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
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  it('stats, trending and compound crises equal the counts made by hand, for windows off the hour', async () => {
    const want = expected(list);
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
      await tx.execute(sql`
        UPDATE signals SET threat_layer = 'health', significance_score = 9.9, country_codes = ARRAY['SD', 'UA'],
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
    const want = expected(now);
    const got = await answers();
    expect(got.signals).toEqual(want.signals);
    expect(got.languages).toEqual(want.languages);
    expect(got.trendingCountries).toEqual(want.trendingCountries);
    expectSameCrises(got.acute, want.acute);
  });
});
