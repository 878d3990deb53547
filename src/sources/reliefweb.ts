import { readNewsItem, type NewsItemRead } from '../reading/news';
import { detectLanguage, languageTag } from '../reading/language';
import { UNREAD_LANGUAGE } from '../reading/read';
import rules from './classify-rules.json';
import {
  content,
  httpUrl,
  isRecord,
  isoDate,
  item,
  parseJson,
  plainText,
  requireArray,
  title,
} from './common';
import { countriesInText, iso3to2 } from './geo';
import { finalScore, firstReportValence, RELIEFWEB_BASE } from './scoring';
import { ConnectorError, type Connector, type ParseContext, type SourceItem } from './types';
import type { Layer } from '../vocab';

/** The fields the catalogue URL asks for (`fields[include][]`): layer hints, countries, language, body. */
const RELIEFWEB_FIELDS = [
  'title',
  'url',
  'date',
  'primary_country',
  'country',
  'disaster_type',
  'theme',
  'language',
  'body',
];

/**
 * ReliefWeb API v2 `/reports`. Every call needs an operator-approved `appname` (source option),
 * so the catalogue entry is disabled until one is set. Layer by disaster type, then theme, then
 * the keyword rules; unlabelled reports that match no rule are dropped. Countries from ISO3 codes.
 */
export const reliefweb: Connector = {
  name: 'reliefweb',
  accept: 'application/json',
  // Documented limit 1,000 calls a day; every 30 minutes is 48.
  defaultIntervalMinutes: 30,
  requestUrl(source) {
    const appname = source.options.appname;
    if (typeof appname !== 'string' || !appname.trim()) {
      throw new ConnectorError(
        'reliefweb: set the source option "appname" (ReliefWeb requires an approved one)',
      );
    }
    const url = new URL(source.url);
    url.searchParams.set('appname', appname.trim());
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', '100');
    if (!url.searchParams.has('preset')) url.searchParams.set('preset', 'latest');
    if (!url.searchParams.has('fields[include][]')) {
      for (const field of RELIEFWEB_FIELDS) url.searchParams.append('fields[include][]', field);
    }
    return url.href;
  },
  *parse(document, context) {
    const root = parseJson(document, 'reliefweb');
    for (const record of requireArray(root, 'data', 'reliefweb')) {
      const mapped = isRecord(record) ? mapReport(record, context) : null;
      if (mapped) yield mapped;
    }
  },
};

const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];

/** Layer from ReliefWeb's own labels: disaster type (EP → health, others → disaster), then theme. */
export function reliefwebLayer(disasterTypes: unknown, themes: unknown): Layer | null {
  const types = records(disasterTypes);
  for (const type of types) {
    const mapped = (rules.reliefwebDisasterTypes as Record<string, string>)[String(type.code)];
    if (mapped) return mapped as Layer;
  }
  if (types.length > 0) return 'disaster';
  for (const theme of records(themes)) {
    const mapped = (rules.reliefwebThemes as Record<string, string>)[String(theme.name)];
    if (mapped) return mapped as Layer;
  }
  return null;
}

/** ISO2 codes of the primary country and every listed country; "wld" (World) is none. */
export function reliefwebCountries(fields: Record<string, unknown>): string[] {
  const codes: string[] = [];
  for (const country of [fields.primary_country, ...records(fields.country)]) {
    const code = isRecord(country) ? iso3to2(country.iso3) : null;
    if (code && !codes.includes(code)) codes.push(code);
  }
  return codes.slice(0, 20);
}

function mapReport(record: Record<string, unknown>, context: ParseContext): SourceItem | null {
  const fields = isRecord(record.fields) ? record.fields : null;
  const id = typeof record.id === 'string' || typeof record.id === 'number' ? String(record.id) : null;
  if (!fields || !id) return null;
  const url = httpUrl(fields.url) ?? `https://reliefweb.int/node/${id}`;
  const date = isRecord(fields.date) ? fields.date : {};
  const published = isoDate(date.original) ?? isoDate(date.created);
  const heading = title(typeof fields.title === 'string' ? fields.title : null);
  if (!published || !heading) return null;
  const body = typeof fields.body === 'string' ? plainText(fields.body) : '';
  const labelled = reliefwebLayer(fields.disaster_type, fields.theme);
  const languages = records(fields.language);
  const own = reliefwebCountries(fields);
  // Unlabelled reports are read as news; ReliefWeb's own countries win over the text's.
  let read: NewsItemRead | null = null;
  if (!labelled) {
    read = readNewsItem({
      title: heading,
      summary: body.slice(0, 1000),
      link: url,
      language: languageTag(languages[0]?.code),
      tier: context.source.tier,
      countries: own,
    });
    if (read.reading.gate === UNREAD_LANGUAGE && context.notes) context.notes.unreadLanguage += 1;
    if (!read.reading.event || !read.reading.layer) return null;
  }
  const layer: Layer = labelled ?? read?.reading.layer ?? 'disaster';
  const score = read ? read.reading.score : finalScore(RELIEFWEB_BASE, context.source.tier);
  const valence = read ? read.reading.valence : firstReportValence(score);
  const countries = own.length ? own : (read?.countries ?? countriesInText(heading));
  return item({
    threat_layer: layer,
    significance_score: score,
    signal_valence: valence,
    title: heading,
    content_display: content(
      heading,
      body,
      [
        records(fields.disaster_type)
          .map((t) => t.name)
          .join(', '),
        records(fields.theme)
          .map((t) => t.name)
          .join(', '),
      ]
        .filter(Boolean)
        .join('; '),
    ),
    // A report's countries are ReliefWeb's own codes; its `location` is a country centroid, not a
    // site, so no coordinates are set.
    country_codes: countries,
    language: languageTag(languages[0]?.code) ?? detectLanguage(`${heading} ${body.slice(0, 500)}`),
    published_at: published,
    source_url: url,
    external_ids: [`reliefweb:${id}`],
    classification: read?.classification ?? undefined,
    upstream_updated_at: isoDate(date.changed) ?? undefined,
  });
}
