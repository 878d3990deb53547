import type { SignalFilter } from '../signals/query';
import type { SignalJson } from '../signals/serialize';

/** The filters a stream takes: those of /api/v1/signals that a change can be judged by alone. */
export type StreamFilter = Pick<
  SignalFilter,
  'layers' | 'minScore' | 'region' | 'country' | 'bbox' | 'distinct'
>;

/**
 * Whether `signal` passes `filter` (all but `distinct`), judged in memory exactly as
 * `signalConditions` judges it in SQL: live changes are matched here, once per open stream,
 * while a resume reads the same filter through Postgres; a test holds the two in step.
 */
export function matchesStream(filter: StreamFilter, signal: SignalJson): boolean {
  if (filter.layers?.length && !filter.layers.includes(signal.threat_layer)) return false;
  if (filter.minScore && signal.significance_score < filter.minScore) return false;
  if (filter.region && signal.region !== filter.region) return false;
  if (filter.country && !signal.country_codes.includes(filter.country)) return false;
  const box = filter.bbox;
  if (box) {
    const { lat, lng } = signal;
    if (lat === null || lng === null) return false;
    if (lat < box.minLat || lat > box.maxLat || lng < box.minLng || lng > box.maxLng) return false;
  }
  return true;
}
