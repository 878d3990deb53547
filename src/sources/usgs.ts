import {
  clip,
  content,
  httpUrl,
  isRecord,
  isoDate,
  item,
  num,
  parseJson,
  point,
  requireArray,
  title,
  plainText,
  TITLE_MAX,
} from './common';
import { countryOfEvent, townInPlace } from './geo';
import { finalScore, firstReportValence, usgsBase } from './scoring';
import { ConnectorError, type Connector, type SourceItem } from './types';

/**
 * USGS earthquake GeoJSON summary feeds (`…/summary/4.5_hour.geojson` and siblings). Identity is
 * every network id in `properties.ids` (the preferred `id` changes when networks merge);
 * `status: deleted` retracts; `updated` is the revision time.
 */
export const usgs: Connector = {
  name: 'usgs',
  accept: 'application/geo+json, application/json',
  // The summary feeds are regenerated every minute; five minutes matches the cron run.
  defaultIntervalMinutes: 5,
  *parse(document, context) {
    const root = parseJson(document, 'usgs');
    if (!isRecord(root) || root.type !== 'FeatureCollection') {
      throw new ConnectorError('usgs: expected a GeoJSON FeatureCollection');
    }
    for (const feature of requireArray(root, 'features', 'usgs')) {
      const mapped = isRecord(feature) ? mapFeature(feature, context.source.tier) : null;
      if (mapped) yield mapped;
    }
  },
};

/** The namespaced identities of one event: its `id` and every id in the comma list `ids`. */
export function usgsIds(id: unknown, ids: unknown): string[] {
  const all = [typeof id === 'string' ? id : '', ...(typeof ids === 'string' ? ids.split(',') : [])];
  return [...new Set(all.map((x) => x.trim()).filter(Boolean))].map((x) => `usgs:${x}`);
}

function mapFeature(
  feature: Record<string, unknown>,
  tier: Parameters<typeof finalScore>[1],
): SourceItem | null {
  const p = feature.properties;
  if (!isRecord(p)) return null;
  const published = isoDate(num(p.time));
  // A deleted event may come stripped of its fields: its retraction must still get through.
  const eventId = typeof feature.id === 'string' ? feature.id : null;
  const url =
    httpUrl(p.url) ??
    (eventId ? `https://earthquake.usgs.gov/earthquakes/eventpage/${encodeURIComponent(eventId)}` : null);
  const externalIds = usgsIds(feature.id, p.ids);
  if (!published || !url || externalIds.length === 0) return null;
  const coordinates = isRecord(feature.geometry) ? feature.geometry.coordinates : null;
  const [lng, lat, depth] = Array.isArray(coordinates) ? (coordinates as unknown[]) : [];
  const at = point(lat, lng);
  const place = typeof p.place === 'string' ? plainText(p.place, TITLE_MAX) || null : null;
  const mag = num(p.mag);
  const alert = typeof p.alert === 'string' ? p.alert : null;
  const tsunami = num(p.tsunami);
  const score = finalScore(usgsBase({ mag, alert, tsunami, sig: num(p.sig) }), tier);
  const heading = title(typeof p.title === 'string' ? p.title : `M ${mag ?? '?'} - ${place ?? 'earthquake'}`);
  const depthKm = num(depth);
  const facts = [
    mag !== null ? `Magnitude ${mag}${typeof p.magType === 'string' ? ` (${p.magType})` : ''}` : null,
    depthKm !== null ? `depth ${Math.round(depthKm * 10) / 10} km` : null,
    alert ? `PAGER alert ${alert}` : null,
    tsunami ? 'tsunami information issued' : null,
    typeof p.status === 'string' ? `status ${p.status}` : null,
  ].filter(Boolean);
  return item({
    threat_layer: 'disaster',
    significance_score: score,
    signal_valence: firstReportValence(score),
    title: heading,
    content_display: content(
      heading,
      place ? `Earthquake ${place}.` : null,
      clip(facts.join(', ') + '.', 500),
    ),
    country_codes: countryOfEvent(at.lat, at.lng, place),
    city: townInPlace(place),
    lat: at.lat,
    lng: at.lng,
    language: 'en',
    published_at: published,
    source_url: url,
    external_ids: externalIds,
    upstream_updated_at: isoDate(num(p.updated)) ?? undefined,
    ...(p.status === 'deleted' ? { retracted: true } : {}),
  });
}
