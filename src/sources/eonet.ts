import {
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
} from './common';
import { countryAt, countriesInText } from './geo';
import { eonetBase, finalScore, firstReportValence } from './scoring';
import type { Connector, SourceItem } from './types';

/** Categories whose points are mostly at sea: country-coder's borders reach out to sea, so no point lookup. */
const MARITIME = new Set(['severeStorms', 'seaLakeIce']);

/**
 * NASA EONET v3 `/events`. Identity is the event id; the latest geometry point gives position,
 * magnitude and the revision time; `closed` set means the event ended (resolution).
 */
export const eonet: Connector = {
  name: 'eonet',
  accept: 'application/json',
  // No documented limit; events change a few times a day. Hourly keeps the load trivial.
  defaultIntervalMinutes: 60,
  *parse(document, context) {
    const root = parseJson(document, 'eonet');
    for (const event of requireArray(root, 'events', 'eonet')) {
      const mapped = isRecord(event) ? mapEvent(event, context.source.tier) : null;
      if (mapped) yield mapped;
    }
  },
};

interface Observation {
  date: string;
  lat: number | null;
  lng: number | null;
  magnitude: number | null;
  unit: string | null;
}

function observations(geometry: unknown): Observation[] {
  const out: Observation[] = [];
  for (const g of Array.isArray(geometry) ? geometry : []) {
    if (!isRecord(g)) continue;
    const date = isoDate(g.date);
    if (!date) continue;
    // Points are [lon, lat]; polygons are reduced to their first vertex.
    let coordinates = g.coordinates;
    while (Array.isArray(coordinates) && Array.isArray(coordinates[0])) coordinates = coordinates[0];
    const [lng, lat] = Array.isArray(coordinates) ? (coordinates as unknown[]) : [];
    const at = point(lat, lng);
    out.push({
      date,
      ...at,
      magnitude: num(g.magnitudeValue),
      unit: typeof g.magnitudeUnit === 'string' ? g.magnitudeUnit : null,
    });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

function mapEvent(event: Record<string, unknown>, tier: Parameters<typeof finalScore>[1]): SourceItem | null {
  const id = typeof event.id === 'string' ? event.id : null;
  const track = observations(event.geometry);
  const first = track[0];
  const last = track[track.length - 1];
  const link = httpUrl(event.link) ?? (id ? `https://eonet.gsfc.nasa.gov/api/v3/events/${id}` : null);
  if (!id || !first || !last || !link) return null;
  const categories = Array.isArray(event.categories) ? event.categories.filter(isRecord) : [];
  const category = typeof categories[0]?.id === 'string' ? categories[0].id : '';
  const categoryTitle = typeof categories[0]?.title === 'string' ? categories[0].title : category;
  const closed = isoDate(event.closed);
  const score = finalScore(eonetBase(category, last.magnitude, last.unit), tier);
  const heading = title(typeof event.title === 'string' ? event.title : `${categoryTitle} ${id}`);
  const description = typeof event.description === 'string' ? plainText(event.description) : '';
  const sources = Array.isArray(event.sources) ? event.sources.filter(isRecord) : [];
  const countries = MARITIME.has(category)
    ? countriesInText(`${heading ?? ''}. ${description}`)
    : [countryAt(last.lat, last.lng)].filter((c): c is string => c !== null);
  return item({
    threat_layer: 'disaster',
    significance_score: score,
    signal_valence: firstReportValence(score, closed !== null),
    title: heading,
    content_display: content(
      heading,
      description,
      [
        categoryTitle,
        last.magnitude !== null ? `${last.magnitude} ${last.unit ?? ''}`.trim() : null,
        closed ? `closed ${closed.slice(0, 10)}` : 'open',
        sources.length ? `sources: ${sources.map((s) => s.id).join(', ')}` : null,
      ]
        .filter(Boolean)
        .join('; ') + '.',
    ),
    country_codes: countries,
    lat: last.lat,
    lng: last.lng,
    language: 'en',
    published_at: first.date,
    source_url: link,
    external_ids: [`eonet:${id}`],
    upstream_updated_at: closed ?? last.date,
  });
}
