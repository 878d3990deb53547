import { isHighConsequence } from './classify';
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
import { countriesInText, countryByName } from './geo';
import { finalScore, firstReportValence, whoDonBase } from './scoring';
import type { Connector, ParseContext, SourceItem } from './types';

const ITEM_BASE = 'https://www.who.int/emergencies/disease-outbreak-news/item/';

/**
 * WHO Disease Outbreak News, from WHO's OData API (`/api/news/diseaseoutbreaknews`, answering
 * `{ value: [{ Id, DonId, Title, UrlName, ItemDefaultUrl, PublicationDate, LastModified,
 * Summary, Overview, ... }] }`). Identity is the DON id (else the GUID); layer health. The country
 * is only in the title ("Sudan virus disease – Uganda").
 */
export const whoDon: Connector = {
  name: 'who-don',
  accept: 'application/json',
  // A handful of items a week.
  defaultIntervalMinutes: 60,
  *parse(document, context) {
    const root = parseJson(document, 'who-don');
    for (const record of requireArray(root, 'value', 'who-don')) {
      const mapped = isRecord(record) ? mapNews(record, context) : null;
      if (mapped) yield mapped;
    }
  },
};

/** Countries of a DON title: the part after the last dash, as a country name, else the gazetteer. */
function whoDonCountries(heading: string): string[] {
  const tail = heading.split(/\s[–—-]\s/).pop() ?? '';
  const codes: string[] = [];
  for (const part of tail.split(/,|\band\b/)) {
    const code = countryByName(part.trim());
    if (code && !codes.includes(code)) codes.push(code);
  }
  return codes.length ? codes : countriesInText(heading);
}

function mapNews(record: Record<string, unknown>, context: ParseContext): SourceItem | null {
  const str = (key: string): string => (typeof record[key] === 'string' ? record[key].trim() : '');
  const id = str('DonId') || str('Id');
  const heading = title(str('Title'));
  const published = isoDate(str('PublicationDateAndTime')) ?? isoDate(str('PublicationDate'));
  const relative = str('ItemDefaultUrl') || (str('UrlName') ? `/${str('UrlName')}` : '');
  const url = httpUrl(relative ? ITEM_BASE + relative.replace(/^\/+/, '') : null);
  if (!id || !heading || !published || !url) return null;
  const summary = plainText(str('Summary') || str('Overview'));
  const score = finalScore(whoDonBase(isHighConsequence(heading)), context.source.tier);
  return item({
    threat_layer: 'health',
    significance_score: score,
    signal_valence: firstReportValence(score),
    title: heading,
    content_display: content(heading, summary, plainText(str('Assessment'))),
    country_codes: whoDonCountries(heading),
    language: 'en',
    published_at: published,
    source_url: url,
    external_ids: [`who-don:${id}`],
    upstream_updated_at: isoDate(str('LastModified')) ?? undefined,
  });
}
