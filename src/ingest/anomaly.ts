import { sql } from 'drizzle-orm';
import { perWindow, SPIKE_WINDOW } from '../analytics/formulas';
import { queryRows, type Database } from '../db/client';
import type { SignalDraft } from './draft';

/**
 * The anomaly rule. A signal is anomalous when its (primary country, threat layer) pair is
 * spiking: n, the number of such signals published in the 6 hours up to and including it,
 * is at least 4, and its Poisson z-score against the 7-day baseline is at least 3:
 *
 *   μ = (signals of the pair in the 7 days before that 6-hour window) / 28
 *   z = (n − μ) / √(μ + 1)
 *
 * The +1 keeps a pair with no history from flagging on a single report. Signals without a
 * country are never anomalous. The windows are trending's (`SPIKE_WINDOW`).
 */
const ANOMALY_RULE = {
  ...SPIKE_WINDOW,
  minCount: 4,
  zThreshold: 3,
} as const;

/** The Poisson z-score of `recent` against a 7-day `baselineCount`. */
export function anomalyZ(recent: number, baselineCount: number): number {
  const mean = perWindow(baselineCount);
  return (recent - mean) / Math.sqrt(mean + 1);
}

/** True when `recent` signals in 6 hours are a spike above `baselineCount` in the prior 7 days. */
export function isAnomalous(recent: number, baselineCount: number): boolean {
  return recent >= ANOMALY_RULE.minCount && anomalyZ(recent, baselineCount) >= ANOMALY_RULE.zThreshold;
}

/** The number of `sorted` values at most `x` (binary search). */
function countUpTo(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Microseconds since the epoch of an item's publication time as it is stored: the row is
 * written from a JavaScript Date, so to the millisecond.
 */
const microsOf = (iso: string): number => Date.parse(iso) * 1000;

const EPOCH = sql`'epoch'::timestamptz`;
const MICROSECOND = sql`interval '1 microsecond'`;

const pairOf = (draft: SignalDraft) => `${draft.item.threat_layer} ${draft.item.country_codes[0]}`;

/**
 * The new signals the anomaly rule flags, among those whose item did not set `is_anomaly`,
 * before any of them is written. The stored publication times of each (layer, primary country)
 * pair the batch touches are read once, over the span its signals need, the batch's own times
 * are added, and each signal's two windows are counted by binary search: one read per batch,
 * not two counts per signal over a busy pair's whole week.
 */
export async function spikingSignals(db: Database, drafts: SignalDraft[]): Promise<Set<string>> {
  const spiking = new Set<string>();
  const placed = drafts.filter((d) => d.item.country_codes.length > 0);
  if (!placed.some((d) => d.item.is_anomaly === undefined)) return spiking;
  const windowUs = ANOMALY_RULE.windowHours * 3_600_000_000;
  const spanUs = windowUs + ANOMALY_RULE.baselineDays * 86_400_000_000;
  // Each pair's span: from the baseline start of its earliest signal to its latest signal.
  const spans = new Map<string, { layer: string; country: string; lo: number; hi: number }>();
  const times = new Map<string, number[]>();
  for (const d of placed) {
    const key = pairOf(d);
    const at = microsOf(d.item.published_at);
    const span = spans.get(key);
    if (span) {
      span.lo = Math.min(span.lo, at - spanUs);
      span.hi = Math.max(span.hi, at);
    } else {
      spans.set(key, {
        layer: d.item.threat_layer,
        country: d.item.country_codes[0]!,
        lo: at - spanUs,
        hi: at,
      });
    }
    const list = times.get(key);
    if (list) list.push(at);
    else times.set(key, [at]);
  }
  const needed = new Set(placed.filter((d) => d.item.is_anomaly === undefined).map(pairOf));
  const pairs = [...spans.entries()].filter(([key]) => needed.has(key)).map(([, p]) => p);
  // Microseconds since the epoch, exact (extract gives numeric), and below 2^53; one row per pair
  // (a busy pair has ten thousand times in its week: one string each, not one row each).
  const stored = await queryRows<{ pair: string; ats: string }>(
    db,
    sql`SELECT p.layer || ' ' || p.country AS pair,
          string_agg((extract(epoch FROM o.published_at) * 1000000)::bigint::text, ',') AS ats
        FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS p(layer text, country text, lo bigint, hi bigint)
        JOIN signals o ON o.threat_layer = p.layer AND o.country_codes[1] = p.country
          AND o.published_at > ${EPOCH} + p.lo * ${MICROSECOND} AND o.published_at <= ${EPOCH} + p.hi * ${MICROSECOND}
        GROUP BY 1`,
  );
  for (const row of stored) {
    const list = times.get(row.pair)!;
    for (const at of row.ats.split(',')) list.push(Number(at));
  }
  const sortedTimes = new Map([...times].map(([key, list]) => [key, Float64Array.from(list).sort()]));
  for (const d of placed) {
    if (d.item.is_anomaly !== undefined) continue;
    const sorted = sortedTimes.get(pairOf(d))!;
    const at = microsOf(d.item.published_at);
    const windowStart = countUpTo(sorted, at - windowUs);
    const recent = countUpTo(sorted, at) - windowStart;
    const baseline = windowStart - countUpTo(sorted, at - spanUs);
    if (isAnomalous(recent, baseline)) spiking.add(d.id);
  }
  return spiking;
}
