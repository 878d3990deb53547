/**
 * The anomaly rule. A signal is anomalous when its (primary country, threat layer) pair is
 * spiking: n, the number of such signals published in the 6 hours up to and including it,
 * is at least 4, and its Poisson z-score against the 7-day baseline is at least 3:
 *
 *   μ = (signals of the pair in the 7 days before that 6-hour window) / 28
 *   z = (n − μ) / √(μ + 1)
 *
 * The +1 keeps a pair with no history from flagging on a single report. Signals without a
 * country are never anomalous.
 */
export const ANOMALY_RULE = {
  windowHours: 6,
  baselineDays: 7,
  minCount: 4,
  zThreshold: 3,
} as const;

const WINDOWS_IN_BASELINE = (ANOMALY_RULE.baselineDays * 24) / ANOMALY_RULE.windowHours;

/** The Poisson z-score of `recent` against a 7-day `baselineCount`. */
export function anomalyZ(recent: number, baselineCount: number): number {
  const mean = baselineCount / WINDOWS_IN_BASELINE;
  return (recent - mean) / Math.sqrt(mean + 1);
}

/** True when `recent` signals in 6 hours are a spike above `baselineCount` in the prior 7 days. */
export function isAnomalous(recent: number, baselineCount: number): boolean {
  return recent >= ANOMALY_RULE.minCount && anomalyZ(recent, baselineCount) >= ANOMALY_RULE.zThreshold;
}
