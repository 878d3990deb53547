import { describe, expect, it } from 'vitest';
import { buildClusters, titleTerms, type ClusterSignal } from '../../src/analytics/clusters';
import {
  clusterScore,
  compositeScore,
  compoundCrisis,
  layerSeverity,
  rankTrending,
  spikeRatio,
  theaterWeight,
} from '../../src/analytics/formulas';

describe('compositeScore', () => {
  it('weighs mean, peak and crisis share: 0.5·5 + 0.3·8 + 2·(1/4) = 5.4', () => {
    expect(compositeScore({ signalCount: 4, scoreSum: 20, scoreMax: 8, crisisCount: 1 })).toBe(5.4);
  });
  it('reaches exactly 10 for an all-crisis bucket of 10s and 0 for an empty one', () => {
    expect(compositeScore({ signalCount: 2, scoreSum: 20, scoreMax: 10, crisisCount: 2 })).toBe(10);
    expect(compositeScore({ signalCount: 0, scoreSum: 0, scoreMax: 0, crisisCount: 0 })).toBe(0);
  });
});

describe('spikeRatio', () => {
  it('compares with the expected 6-hour count, baseline / 28, smoothed by +1: (9+1)/(2+1)', () => {
    expect(spikeRatio(9, 56)).toBe(3.33);
  });
  it('keeps one report against no history at 2, not infinity', () => {
    expect(spikeRatio(1, 0)).toBe(2);
  });
  it('falls below 1 when activity drops: (0+1)/(1+1)', () => {
    expect(spikeRatio(0, 28)).toBe(0.5);
  });
});

describe('rankTrending', () => {
  it('orders by ratio, then recent count, and leaves out entries with nothing recent', () => {
    const ranked = rankTrending([
      { key: 'a', recent: 9, baseline: 56 },
      { key: 'b', recent: 1, baseline: 0 },
      { key: 'c', recent: 0, baseline: 5 },
      { key: 'd', recent: 3, baseline: 28 },
    ]);
    expect(ranked.map((r) => [r.key, r.spikeRatio, r.expected])).toEqual([
      ['a', 3.33, 2],
      ['d', 2, 1],
      ['b', 2, 0],
    ]);
  });
  it('keeps the top 8', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, recent: i + 1, baseline: 0 }));
    expect(rankTrending(rows).map((r) => r.key)).toEqual(['k11', 'k10', 'k9', 'k8', 'k7', 'k6', 'k5', 'k4']);
  });
});

describe('compound crisis', () => {
  const layer = (name: string, signalCount: number, scoreSum: number, scoreMax: number) => ({
    layer: name,
    signalCount,
    scoreSum,
    scoreMax,
    crisisCount: 0,
  });

  it('layer severity is 0.6·mean + 0.4·max: 0.6·6 + 0.4·8 = 6.8', () => {
    expect(layerSeverity(layer('military', 3, 18, 8))).toBe(6.8);
  });

  it('needs 2 layers at severity ≥ 5 with ≥ 3 signals; composite = mean + 0.5·(k−1)', () => {
    const crisis = compoundCrisis([
      layer('military', 3, 18, 8), // 6.8
      layer('cyber', 4, 24, 7), // 6.4
      layer('health', 2, 18, 9.5), // 9.2 but only 2 signals
      layer('economic', 5, 15, 4), // 3.4, under the threshold
    ]);
    expect(crisis).toEqual({
      compositeSeverity: 7.1, // (6.8 + 6.4) / 2 + 0.5
      layers: [
        {
          layer: 'military',
          signalCount: 3,
          crisisCount: 0,
          meanScore: 6,
          maxScore: 8,
          severity: 6.8,
          share: 0.515,
        },
        {
          layer: 'cyber',
          signalCount: 4,
          crisisCount: 0,
          meanScore: 6,
          maxScore: 7,
          severity: 6.4,
          share: 0.485,
        },
      ],
    });
  });

  it('one converging layer is not a compound crisis', () => {
    expect(compoundCrisis([layer('military', 3, 18, 8), layer('cyber', 3, 3, 1)])).toBeNull();
  });

  it('caps the composite at 10', () => {
    const tens = ['military', 'cyber', 'health'].map((l) => layer(l, 3, 30, 10));
    expect(compoundCrisis(tens)!.compositeSeverity).toBe(10);
  });
});

describe('clusterScore and theaterWeight', () => {
  it('is mean · ln(1+n) · mean/layerMean: 6 · ln 4 · 1.5 = 12.48', () => {
    expect(clusterScore(6, 3, 4)).toBe(12.48);
  });
  it('theater weight sums the scores', () => {
    expect(theaterWeight([7.5, 6, 2.25])).toBe(15.75);
  });
});

describe('buildClusters', () => {
  const signal = (
    id: string,
    layer: string,
    score: number,
    title: string,
    entities: string[],
  ): ClusterSignal => ({
    id,
    layer,
    score,
    title,
    countries: ['UA'],
    publishedAt: `2026-11-21T0${id.length}:00:00.000Z`,
    entities,
  });
  const input = [
    signal('s1', 'military', 9, 'Presidential Guard repels push toward Tripoli', [
      'Tripoli',
      'Presidential Guard',
    ]),
    signal('s2', 'military', 8, 'Heavy fighting near Tripoli', ['Tripoli', 'Presidential Guard']),
    signal('s3', 'military', 7, 'Rockets hit Tripoli suburbs', ['Tripoli']),
    signal('s4', 'military', 6, 'Shelling near Kharkiv', ['Kharkiv', 'Armed Forces of Ukraine']),
    signal('s5', 'military', 5, 'Kharkiv offensive stalls', ['Kharkiv', 'Armed Forces of Ukraine']),
    signal('s6', 'military', 3, 'Clashes near Goma', ['Goma']),
    signal('s7', 'cyber', 7, 'Tripoli Presidential Guard network breached', [
      'Tripoli',
      'Presidential Guard',
    ]),
  ];

  it('groups signals of a layer by shared entities and terms, and scores by local significance', () => {
    const clusters = buildClusters(input, 2);
    expect(clusters.map((c) => [c.threat_layer, c.signal_ids, c.score])).toEqual([
      // layer mean = 38/6; Tripoli: 8 · ln 4 · 8/(38/6) = 14.01; Kharkiv: 5.5 · ln 3 · 5.5/(38/6) = 5.25
      ['military', ['s1', 's2', 's3'], 14.01],
      ['military', ['s4', 's5'], 5.25],
    ]);
    expect(clusters[0]).toMatchObject({
      mean_score: 8,
      layer_mean_score: 6.33,
      lift: 1.263,
      headline: 'Presidential Guard repels push toward Tripoli',
      top_entities: [
        { name: 'Tripoli', signal_count: 3 },
        { name: 'Presidential Guard', signal_count: 2 },
      ],
      top_terms: [{ name: 'tripoli', signal_count: 3 }],
      countries: [{ country_code: 'UA', signal_count: 3 }],
    });
  });

  it('a single shared generic word does not link (Goma shares only "near")', () => {
    const all = buildClusters(input, 1).flatMap((c) => c.signal_ids);
    expect(buildClusters(input, 1).find((c) => c.signal_ids.includes('s6'))!.signal_ids).toEqual(['s6']);
    expect(all).toHaveLength(7);
  });

  it('min_signals drops smaller clusters', () => {
    expect(buildClusters(input, 3).map((c) => c.signal_ids)).toEqual([['s1', 's2', 's3']]);
  });

  it('title terms drop stop words, short words and plural s', () => {
    expect(titleTerms("Rockets hit Tripoli's suburbs after the talks")).toEqual([
      'rocket',
      'tripoli',
      'suburb',
      'talk',
    ]);
  });
});
