/**
 * The analytics formulas, as pure functions. docs/analytics.md states each one;
 * test/analytics/formulas.test.ts pins them on hand-computed fixtures. SQL only gathers the
 * counts these functions take.
 */

import { round as roundTo } from '../numbers';

/** Formulas answer to two decimals unless they say otherwise. */
const round = (value: number, places = 2) => roundTo(value, places);

/** Aggregates of one (hour, region, layer) bucket. */
export interface BucketStats {
  signalCount: number;
  scoreSum: number;
  scoreMax: number;
  crisisCount: number;
}

/**
 * Snapshot composite threat score, 0–10: half the mean score (how serious the typical signal
 * is), three tenths of the peak (the worst single signal) and up to 2 points for the share of
 * crisis signals. `0.5·10 + 0.3·10 + 2·1 = 10`, so no clamping is needed.
 */
export function compositeScore(b: BucketStats): number {
  if (b.signalCount <= 0) return 0;
  const mean = b.scoreSum / b.signalCount;
  return round(0.5 * mean + 0.3 * b.scoreMax + 2 * (b.crisisCount / b.signalCount));
}

/**
 * The spike test's windows, shared by trending and the anomaly rule (src/ingest/anomaly.ts):
 * the last 6 hours against the 7 days before them.
 */
export const SPIKE_WINDOW = { windowHours: 6, baselineDays: 7 } as const;

/** How many spike windows the baseline holds (28). */
const WINDOWS_IN_BASELINE = (SPIKE_WINDOW.baselineDays * 24) / SPIKE_WINDOW.windowHours;

/** The expected count of one spike window given a baseline count (unrounded). */
export const perWindow = (baseline: number) => baseline / WINDOWS_IN_BASELINE;

export const TRENDING = {
  ...SPIKE_WINDOW,
  /** Added to both sides of the ratio so a handful of reports cannot dominate. */
  smoothing: 1,
  top: 8,
} as const;

/**
 * Spike ratio of the last 6 hours against the 7-day baseline before them, both counting events,
 * not echoes (trending feeds each event once, at its first report):
 * `(recent + 1) / (baseline / 28 + 1)`, where `baseline / 28` is the expected count of a 6-hour
 * window. The +1 on both sides (additive smoothing) keeps 1 report against an empty history at
 * 2, not infinity, and leaves large counts almost untouched.
 */
export function spikeRatio(recent: number, baseline: number): number {
  return round((recent + TRENDING.smoothing) / (perWindow(baseline) + TRENDING.smoothing));
}

/** The expected count of one 6-hour window given a 7-day baseline count. */
const expectedPerWindow = (baseline: number) => round(perWindow(baseline));

export interface TrendInput {
  key: string;
  recent: number;
  baseline: number;
}

/** Ranks entries by spike ratio, then recent count, then key; entries with no recent signal are left out. */
export function rankTrending(rows: TrendInput[], top: number = TRENDING.top) {
  return rows
    .filter((r) => r.recent > 0)
    .map((r) => ({
      ...r,
      expected: expectedPerWindow(r.baseline),
      spikeRatio: spikeRatio(r.recent, r.baseline),
    }))
    .sort((a, b) => b.spikeRatio - a.spikeRatio || b.recent - a.recent || a.key.localeCompare(b.key))
    .slice(0, top);
}

export const CRISIS = {
  windows: { acute: 7, chronic: 30 },
  /** A layer counts toward a compound crisis at this severity or above... */
  layerThreshold: 5,
  /** ...backed by at least this many events (not echoes), so one story cannot make a crisis. */
  minSignals: 3,
  minLayers: 2,
} as const;

/**
 * One country's events on one layer within a window, not their echoes: `signalCount`,
 * `scoreSum` and `crisisCount` are over events (each once, by its first report); `scoreMax` is
 * over every report (an event's strongest report is its severity).
 */
export interface LayerStats {
  layer: string;
  signalCount: number;
  scoreSum: number;
  scoreMax: number;
  crisisCount: number;
}

/** Layer severity, 0–10: `0.6·mean + 0.4·max` of the layer's scores in the window. */
export function layerSeverity(s: LayerStats): number {
  if (s.signalCount <= 0) return 0;
  return round(0.6 * (s.scoreSum / s.signalCount) + 0.4 * s.scoreMax);
}

/**
 * A compound crisis from one country's layers, or null: at least 2 layers with severity ≥ 5 and
 * ≥ 3 events each. Composite severity = `min(10, mean of their severities + 0.5·(k − 1))` for
 * k converging layers, so each extra layer adds half a point; each layer's `share` is its
 * severity over the sum of the converging layers' severities.
 */
export function compoundCrisis(layers: LayerStats[]) {
  const scored = layers.map((l) => ({
    ...l,
    severity: layerSeverity(l),
  }));
  const converging = scored
    .filter((l) => l.severity >= CRISIS.layerThreshold && l.signalCount >= CRISIS.minSignals)
    .sort((a, b) => b.severity - a.severity || a.layer.localeCompare(b.layer));
  if (converging.length < CRISIS.minLayers) return null;
  const total = converging.reduce((sum, l) => sum + l.severity, 0);
  const mean = total / converging.length;
  return {
    compositeSeverity: round(Math.min(10, mean + 0.5 * (converging.length - 1))),
    layers: converging.map((l) => ({
      layer: l.layer,
      signalCount: l.signalCount,
      crisisCount: l.crisisCount,
      meanScore: round(l.scoreSum / l.signalCount),
      maxScore: l.scoreMax,
      severity: l.severity,
      share: round(l.severity / total, 3),
    })),
  };
}

/**
 * Cluster score: `mean · ln(1 + n) · lift`, where `mean` is the cluster's mean significance, n its
 * size and `lift = mean / layer mean` (the layer's mean over the same window and filters): big
 * clusters score higher, but only in proportion to how far they stand above their own layer.
 */
export function clusterScore(mean: number, size: number, layerMean: number): number {
  if (size <= 0 || layerMean <= 0) return 0;
  return round(mean * Math.log(1 + size) * (mean / layerMean));
}

/** Brief theater weight: the sum of the scores of a place's signals (how much serious activity). */
export const theaterWeight = (scores: number[]) => round(scores.reduce((s, x) => s + x, 0));
