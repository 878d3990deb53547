import type { Database } from '../db/client';
import { signals } from '../db/schema';
import { httpUrl, xmlSafe } from '../feeds/text';
import { signalConditions, signalOrder, type SignalFilter } from '../signals/query';
import type { MapEvent } from './map';

/**
 * Events a map reads at most, strongest first: the cap bounds the query, the answer and the
 * rendering whatever the window (a month of a busy feed); the map says when it left some out.
 */
export const MAP_MAX_EVENTS = 10_000;

/**
 * The events of `filter`, one row each (its strongest matching signal, as `distinct=event`
 * reads them), strongest first, at most `limit`; `truncated` when more matched.
 */
export async function mapEvents(
  db: Database,
  filter: SignalFilter,
  limit = MAP_MAX_EVENTS,
): Promise<{ events: MapEvent[]; truncated: boolean }> {
  const rows = await db
    .select({
      id: signals.id,
      eventId: signals.eventId,
      layer: signals.threatLayer,
      score: signals.significanceScore,
      title: signals.title,
      lat: signals.lat,
      lng: signals.lng,
      countries: signals.countryCodes,
      corroboration: signals.corroboration,
      publishedAt: signals.publishedAt,
      url: signals.sourceUrl,
    })
    .from(signals)
    .where(signalConditions({ ...filter, distinct: 'event' }))
    .orderBy(...signalOrder)
    // One more than shown says whether any were left out, without a second count query.
    .limit(limit + 1);
  const events = rows.slice(0, limit).map((row) => ({
    ...row,
    title: xmlSafe(row.title),
    url: httpUrl(row.url),
  }));
  return { events, truncated: rows.length > limit };
}
