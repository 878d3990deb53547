import {
  content,
  httpUrl,
  isRecord,
  isoDate,
  item,
  parseJson,
  point,
  requireArray,
  title,
  plainText,
} from './common';
import { finalScore, firstReportValence, nwsBase } from './scoring';
import { ConnectorError, type Connector, type ParseContext, type SourceItem } from './types';

/** UGC zone prefixes of the US territories that have their own ISO 3166-1 code. */
const TERRITORY_UGC: Record<string, string> = { PR: 'PR', VI: 'VI', GU: 'GU', AS: 'AS', MP: 'MP' };

/**
 * US National Weather Service alerts (`api.weather.gov/alerts/active`). Identity is the CAP
 * identifier plus every earlier alert it references (`references`, `expiredReferences`), so an
 * Update or Cancel lands on the signal of the alert it replaces. Only `status: Actual` is kept.
 */
export const nws: Connector = {
  name: 'nws',
  accept: 'application/geo+json',
  // api.weather.gov asks for an identifying User-Agent and "reasonable" rates; alerts change by the minute.
  defaultIntervalMinutes: 5,
  *parse(document, context) {
    const root = parseJson(document, 'nws');
    if (!isRecord(root) || root.type !== 'FeatureCollection') {
      throw new ConnectorError('nws: expected a GeoJSON FeatureCollection');
    }
    for (const feature of requireArray(root, 'features', 'nws')) {
      const mapped = isRecord(feature) ? mapAlert(feature, context) : null;
      if (mapped) yield mapped;
    }
  },
};

/** US, or the territory of the alert's UGC zones (PRZ001 → PR). */
export function nwsCountries(ugc: unknown): string[] {
  const codes = new Set<string>();
  for (const zone of Array.isArray(ugc) ? ugc : []) {
    if (typeof zone === 'string') codes.add(TERRITORY_UGC[zone.slice(0, 2)] ?? 'US');
  }
  return codes.size ? [...codes] : ['US'];
}

/** The CAP identifiers an alert replaces: `references[].identifier` and `expiredReferences` ("sender,id,sent"). */
function nwsReferencedIds(properties: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const ref of Array.isArray(properties.references) ? properties.references : []) {
    if (isRecord(ref) && typeof ref.identifier === 'string') ids.push(ref.identifier);
  }
  const parameters = isRecord(properties.parameters) ? properties.parameters : {};
  for (const ref of Array.isArray(parameters.expiredReferences) ? parameters.expiredReferences : []) {
    const id = typeof ref === 'string' ? ref.split(',')[1] : undefined;
    if (id) ids.push(id.trim());
  }
  return ids;
}

function centroid(geometry: unknown): { lat: number | null; lng: number | null } {
  if (!isRecord(geometry) || !Array.isArray(geometry.coordinates)) return { lat: null, lng: null };
  let ring: unknown = geometry.coordinates;
  while (Array.isArray(ring) && Array.isArray(ring[0]) && Array.isArray(ring[0][0])) ring = ring[0];
  const points = (Array.isArray(ring) ? ring : []).filter(
    (p): p is [number, number] => Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'number',
  );
  if (points.length === 0) return { lat: null, lng: null };
  const sum = points.reduce((acc, [lng, lat]) => [acc[0] + lng, acc[1] + lat], [0, 0]);
  return point(sum[1] / points.length, sum[0] / points.length);
}

function mapAlert(feature: Record<string, unknown>, context: ParseContext): SourceItem | null {
  const p = feature.properties;
  if (!isRecord(p) || p.status !== 'Actual') return null;
  const id = typeof p.id === 'string' ? p.id : null;
  const url = httpUrl(p['@id']) ?? httpUrl(feature.id);
  const sent = isoDate(p.sent);
  if (!id || !url || !sent) return null;
  const str = (value: unknown): string => (typeof value === 'string' ? value : '');
  const score = finalScore(nwsBase(str(p.severity), str(p.urgency), str(p.certainty)), context.source.tier);
  const endsAt = isoDate(p.ends) ?? isoDate(p.expires);
  const ended =
    p.messageType === 'Cancel' || (endsAt !== null && Date.parse(endsAt) <= context.now.getTime());
  const heading = title(str(p.headline) || `${str(p.event)} for ${str(p.areaDesc)}`);
  const at = centroid(feature.geometry);
  return item({
    threat_layer: 'disaster',
    significance_score: score,
    signal_valence: firstReportValence(score, ended),
    title: heading,
    content_display: content(
      heading,
      `${str(p.event)}: severity ${str(p.severity) || 'Unknown'}, urgency ${str(p.urgency) || 'Unknown'}, certainty ${str(p.certainty) || 'Unknown'}. Area: ${str(p.areaDesc)}.`,
      plainText(str(p.description)),
      plainText(str(p.instruction)),
    ),
    country_codes: nwsCountries(isRecord(p.geocode) ? p.geocode.UGC : null),
    lat: at.lat,
    lng: at.lng,
    language: 'en',
    published_at: sent,
    source_url: url,
    external_ids: [...new Set([id, ...nwsReferencedIds(p)])].map((x) => `nws:${x}`),
    upstream_updated_at: sent,
  });
}
