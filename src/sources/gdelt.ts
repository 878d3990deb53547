import { readNewsItem } from '../reading/news';
import { UNREAD_LANGUAGE } from '../reading/read';
import { languageByName } from './classify';
import { httpUrl, isRecord, item, parseJson, title, content, capItems } from './common';
import { canonicalLink } from './rss';
import { ConnectorError, type Connector, type ParseContext, type SourceItem } from './types';

/** Look-back of each query (source option `timespan`, GDELT syntax such as `1h`, `24h`). */
const GDELT_DEFAULT_TIMESPAN = '1h';
const GDELT_DEFAULT_MAX_RECORDS = 75;

/**
 * GDELT DOC 2.0 ArtList. One source row per topic: option `query` (GDELT query syntax, e.g.
 * `(ransomware OR cyberattack) sourcelang:english`). Titles only, so items are classified like RSS
 * and unmatched ones dropped. `sourcecountry` is the publisher's country, never the story's.
 */
export const gdelt: Connector = {
  name: 'gdelt',
  accept: 'application/json',
  // The DOC index updates every 15 minutes; the API allows about one request every 5 seconds.
  defaultIntervalMinutes: 15,
  requestUrl(source) {
    const query = source.options.query;
    if (typeof query !== 'string' || !query.trim()) {
      throw new ConnectorError('gdelt: set the source option "query" (one topic per source)');
    }
    const url = new URL(source.url);
    url.searchParams.set('query', query.trim());
    url.searchParams.set('mode', 'artlist');
    url.searchParams.set('format', 'json');
    url.searchParams.set('sort', 'datedesc');
    const timespan = source.options.timespan;
    url.searchParams.set(
      'timespan',
      typeof timespan === 'string' && /^\d+(min|h|d|w)$/.test(timespan) ? timespan : GDELT_DEFAULT_TIMESPAN,
    );
    const max = Number(source.options.max_records);
    url.searchParams.set(
      'maxrecords',
      String(Number.isInteger(max) && max >= 1 && max <= 250 ? max : GDELT_DEFAULT_MAX_RECORDS),
    );
    return url.href;
  },
  *parse(document, context) {
    const root = parseJson(document, 'gdelt');
    if (!isRecord(root)) throw new ConnectorError('gdelt: expected a JSON object');
    // GDELT answers `{}` when a query matches nothing.
    if (root.articles === undefined) return;
    if (!Array.isArray(root.articles)) throw new ConnectorError('gdelt: "articles" is not an array');
    for (const article of capItems(root.articles, 'gdelt')) {
      const mapped = isRecord(article) ? mapArticle(article, context) : null;
      if (mapped) yield mapped;
    }
  },
};

/** `20260112T063000Z` → ISO 8601, or null. */
function gdeltDate(value: unknown): string | null {
  const m = typeof value === 'string' ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value) : null;
  if (!m) return null;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function mapArticle(article: Record<string, unknown>, context: ParseContext): SourceItem | null {
  const link = httpUrl(article.url);
  // GDELT pads punctuation with spaces ("Chabahar Port : India …").
  const heading =
    title(typeof article.title === 'string' ? article.title : '')?.replace(/\s+([:,.;!?])/g, '$1') ?? null;
  const seen = gdeltDate(article.seendate);
  if (!link || !heading || !seen) return null;
  const read = readNewsItem({
    title: heading,
    summary: '',
    link,
    language: languageByName(article.language),
    tier: context.source.tier,
  });
  const { reading } = read;
  if (reading.gate === UNREAD_LANGUAGE && context.notes) context.notes.unreadLanguage += 1;
  if (!reading.event || !reading.layer) return null;
  const url = canonicalLink(link);
  const domain = typeof article.domain === 'string' ? article.domain : new URL(url).hostname;
  return item({
    threat_layer: reading.layer,
    significance_score: reading.score,
    signal_valence: reading.valence,
    title: heading,
    content_display: content(heading, `Reported by ${domain}.`),
    country_codes: read.countries,
    ...(read.city ? { city: read.city.name, lat: read.city.lat, lng: read.city.lng } : {}),
    language: languageByName(article.language) ?? reading.language,
    published_at: seen,
    source_url: url,
    external_ids: [`gdelt:${url}`],
    classification: read.classification ?? undefined,
  });
}
