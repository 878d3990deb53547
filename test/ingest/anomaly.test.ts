import { inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signals } from '../../src/db/schema';
import { anomalyZ, isAnomalous } from '../../src/ingest/anomaly';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { withTestDatabase } from '../support/harness';

const HOUR = 3_600_000;

describe('anomaly rule against a non-zero baseline', () => {
  it('needs more recent signals the busier the pair usually is', () => {
    // 56 in the 7 days before: μ = 2 per 6 hours, so z = (n − 2) / √3.
    expect(anomalyZ(8, 56)).toBeCloseTo(6 / Math.sqrt(3), 10);
    expect(isAnomalous(7, 56)).toBe(false); // z ≈ 2.89
    expect(isAnomalous(8, 56)).toBe(true); // z ≈ 3.46
    // Four with no history is a spike; the same four against the baseline is not.
    expect(isAnomalous(4, 0)).toBe(true);
    expect(isAnomalous(4, 56)).toBe(false);
  });

  describe('through ingest', () => {
    const database = withTestDatabase();

    const item = (name: string, at: number) => ({
      ...FIXTURE.lyonHospital,
      country_codes: ['FR'],
      source_url: `https://wire.example.com/anomaly/${name}`,
      published_at: new Date(at).toISOString(),
    });
    const flagged = async (urls: string[]) => {
      const rows = await database.db
        .select({ url: signals.sourceUrl, anomaly: signals.isAnomaly })
        .from(signals)
        .where(inArray(signals.sourceUrl, urls));
      return new Map(rows.map((r) => [r.url, r.anomaly]));
    };

    it('flags the eighth signal in 6 hours on a pair with 56 in the week before, not the seventh', async () => {
      const t = Date.now() - HOUR;
      // The baseline: 56 (France, cyber) signals, all older than any recent signal's 6-hour window.
      const baseline = Array.from({ length: 56 }, (_, k) => item(`base-${k}`, t - 20 * HOUR - k * 2 * HOUR));
      expect(await ingestSignals(database.db, baseline)).toMatchObject({ accepted: 56 });
      const recent = Array.from({ length: 8 }, (_, i) => item(`recent-${i}`, t - 5 * HOUR + i * 30 * 60_000));
      for (const signal of recent)
        expect(await ingestSignals(database.db, [signal])).toMatchObject({ accepted: 1 });
      const anomaly = await flagged(recent.map((r) => r.source_url));
      expect(recent.map((r) => anomaly.get(r.source_url))).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
        false,
        true,
      ]);
      expect([...(await flagged(baseline.map((b) => b.source_url))).values()].every((a) => a === false)).toBe(
        true,
      );
    });

    it('counts the 6-hour window open at its start and closed at its end, within one batch', async () => {
      const t = Date.now() - HOUR;
      const batch = (country: string, first: number) =>
        [first, t - 3 * HOUR, t - 2 * HOUR, t].map((at, i) => ({
          ...item(`${country}-${i}`, at),
          country_codes: [country],
        }));
      // Exactly 6 hours before the last: outside its window (3 recent, 1 before): no spike.
      const edge = batch('PT', t - 6 * HOUR);
      // A millisecond later: inside it (4 recent, none before): a spike.
      const inside = batch('BE', t - 6 * HOUR + 1);
      expect(await ingestSignals(database.db, [...edge, ...inside])).toMatchObject({ accepted: 8 });
      const anomaly = await flagged([...edge, ...inside].map((r) => r.source_url));
      expect(edge.map((r) => anomaly.get(r.source_url))).toEqual([false, false, false, false]);
      expect(inside.map((r) => anomaly.get(r.source_url))).toEqual([false, false, false, true]);
    });
  });
});
