import {
  content,
  httpUrl,
  isRecord,
  isoDate,
  item,
  num,
  parseXml,
  plainText,
  point,
  title,
  xmlText,
  capItems,
  TITLE_MAX,
} from './common';
import { countryAt, countryByName, iso3to2 } from './geo';
import { finalScore, firstReportValence, gdacsBase } from './scoring';
import { ConnectorError, type Connector, type SourceItem } from './types';

const EVENT_TYPES: Record<string, string> = {
  EQ: 'Earthquake',
  TC: 'Tropical cyclone',
  FL: 'Flood',
  VO: 'Volcano',
  DR: 'Drought',
  WF: 'Wildfire',
  TS: 'Tsunami',
};

/**
 * GDACS RSS (`rss.xml`, `rss_7d.xml`...). Identity is the guid (event type + event id, stable
 * across episodes); `gdacs:datemodified` is the revision time; `gdacs:iscurrent=false` means the
 * event may be over (see `gdacsEnded`). Countries: every name of `gdacs:country` plus `gdacs:iso3`.
 */
export const gdacs: Connector = {
  name: 'gdacs',
  accept: 'application/rss+xml, application/xml;q=0.9',
  // No documented rate limit; GDACS re-computes alerts on new episodes, not by the minute.
  defaultIntervalMinutes: 15,
  *parse(document, context) {
    const root = parseXml(document, 'gdacs');
    const channel = isRecord(root.rss) ? root.rss.channel : null;
    if (!isRecord(channel)) throw new ConnectorError('gdacs: no RSS <channel>');
    const raw = channel.item;
    const entries = capItems(Array.isArray(raw) ? raw : [], 'gdacs');
    const asOf =
      isoDate(xmlText(channel.pubDate)) ??
      isoDate(xmlText(channel.lastBuildDate)) ??
      context.now.toISOString();
    for (const entry of entries) {
      const mapped = isRecord(entry) ? mapItem(entry, context.source.tier, asOf) : null;
      if (mapped) yield mapped;
    }
  },
};

/** Affected countries: each listed name that is a country, the ISO3 code, else the point, else none. */
export function gdacsCountries(
  countryList: string,
  iso3: string,
  lat: number | null,
  lng: number | null,
): string[] {
  const codes: string[] = [];
  const add = (code: string | null): void => {
    if (code && !codes.includes(code)) codes.push(code);
  };
  for (const name of countryList.split(',')) add(countryByName(name));
  add(iso3to2(iso3));
  // Regions such as "Kuril Islands" or offshore items with an empty <gdacs:iso3/>: the point may
  // still be inside a country; the offshore remainder stays without a country.
  if (codes.length === 0) add(countryAt(lat, lng));
  return codes.slice(0, 20);
}

/** Days after its last episode (`gdacs:todate`) that a no-longer-current event counts as ended. */
const GDACS_ENDED_AFTER_DAYS = 3;

/**
 * Ended upstream: `gdacs:iscurrent` is false and the last episode is over three days older than
 * the document. Ongoing droughts are also flagged not current while their `todate` keeps moving.
 */
export function gdacsEnded(isCurrent: string, toDate: string | null, asOf: string): boolean {
  if (isCurrent.toLowerCase() !== 'false' || !toDate) return false;
  return Date.parse(asOf) - Date.parse(toDate) > GDACS_ENDED_AFTER_DAYS * 86_400_000;
}

function mapItem(
  it: Record<string, unknown>,
  tier: Parameters<typeof finalScore>[1],
  asOf: string,
): SourceItem | null {
  const guid = xmlText(it.guid);
  const link = httpUrl(xmlText(Array.isArray(it.link) ? it.link[0] : it.link));
  const published = isoDate(xmlText(it.pubDate)) ?? isoDate(xmlText(it['gdacs:fromdate']));
  if (!guid || !link || !published) return null;
  const geo = isRecord(it['geo:Point']) ? it['geo:Point'] : {};
  const at = point(xmlText(geo['geo:lat']), xmlText(geo['geo:long']));
  const eventType = xmlText(it['gdacs:eventtype']);
  const alertLevel = xmlText(it['gdacs:alertlevel']) || 'Green';
  const severity = isRecord(it['gdacs:severity']) ? it['gdacs:severity'] : {};
  const severityValue = num(severity['@_value']);
  const severityUnit = typeof severity['@_unit'] === 'string' ? severity['@_unit'] : '';
  const score = finalScore(gdacsBase({ alertLevel, eventType, severityValue, severityUnit }), tier);
  const ended = gdacsEnded(xmlText(it['gdacs:iscurrent']), isoDate(xmlText(it['gdacs:todate'])), asOf);
  const heading = title(xmlText(it.title, TITLE_MAX));
  const countryList = xmlText(it['gdacs:country']);
  const severityText = xmlText(severity);
  return item({
    threat_layer: 'disaster',
    significance_score: score,
    signal_valence: firstReportValence(score, ended),
    title: heading,
    content_display: content(
      heading,
      plainText(xmlText(it.description)),
      [
        `${EVENT_TYPES[eventType] ?? eventType}, ${alertLevel} alert`,
        severityText ? `severity: ${severityText}` : null,
        countryList ? `countries: ${countryList}` : null,
      ]
        .filter(Boolean)
        .join('; ') + '.',
    ),
    country_codes: gdacsCountries(countryList, xmlText(it['gdacs:iso3']), at.lat, at.lng),
    lat: at.lat,
    lng: at.lng,
    language: 'en',
    published_at: published,
    source_url: link,
    external_ids: [`gdacs:${guid}`],
    upstream_updated_at: isoDate(xmlText(it['gdacs:datemodified'])) ?? undefined,
  });
}
