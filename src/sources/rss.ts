import { readNewsItem } from '../reading/news';
import { languageTag } from '../reading/language';
import { UNREAD_LANGUAGE } from '../reading/read';
import {
  capItems,
  content,
  httpUrl,
  isRecord,
  isoDate,
  item,
  parseJson,
  parseXml,
  plainText,
  title,
  TITLE_MAX,
  xmlText,
} from './common';
import { ConnectorError, type Connector, type ParseContext, type SourceItem } from './types';

/**
 * One entry of any of the three formats, before classification. `title` is raw (XML entities
 * decoded, markup kept: `title()` cleans it once); `summary` is clean plain text.
 */
interface Entry {
  title: string;
  summary: string;
  link: string | null;
  guid: string | null;
  published: string | null;
  updated: string | null;
  language: string | null;
  /** The feed's own categories (the reader's model reads them). */
  categories: string[];
}

/** At most this many categories of an entry, each clipped: they are a hint, not content. */
const MAX_CATEGORIES = 10;
const CATEGORY_MAX = 80;
const categoriesOf = (values: unknown[]): string[] =>
  values
    .map((v) => (typeof v === 'string' ? v : xmlText(v, CATEGORY_MAX)).trim().slice(0, CATEGORY_MAX))
    .filter(Boolean)
    .slice(0, MAX_CATEGORIES);

/**
 * Any news feed: RSS 2.0 (and 1.0), Atom or JSON Feed. Items carry no layer or place, so they
 * are classified from headline + summary and items matching no layer are dropped. Identity is the
 * link without its fragment: BBC guids are the link plus a `#0`…`#3` suffix that changes.
 */
export const rss: Connector = {
  name: 'rss',
  accept:
    'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5',
  // BBC and most news feeds say <ttl>15</ttl>.
  defaultIntervalMinutes: 15,
  // A generator: classification runs per item, and the ingest yields between chunks of items.
  *parse(document, context) {
    const entries = document
      .trimStart()
      .replace(/^\uFEFF/, '')
      .startsWith('{')
      ? jsonFeed(document)
      : xmlFeed(document);
    for (const entry of entries) {
      const mapped = mapEntry(entry, context);
      if (mapped) yield mapped;
    }
  },
};

/** The identity URL of a news link: without fragment, so `…/articles/x#2` and `…#0` are one item. */
export function canonicalLink(link: string): string {
  const url = new URL(link);
  url.hash = '';
  return url.href;
}

function mapEntry(entry: Entry, context: ParseContext): SourceItem | null {
  const link = httpUrl(entry.link) ?? httpUrl(entry.guid);
  const heading = title(entry.title);
  if (!link || !(heading || entry.summary)) return null;
  const read = readNewsItem({
    title: heading ?? '',
    summary: entry.summary,
    link,
    language: entry.language,
    tier: context.source.tier,
    categories: entry.categories,
  });
  const { reading } = read;
  if (reading.gate === UNREAD_LANGUAGE && context.notes) context.notes.unreadLanguage += 1;
  if (!reading.event || !reading.layer) return null;
  const url = canonicalLink(link);
  return item({
    threat_layer: reading.layer,
    significance_score: reading.score,
    signal_valence: reading.valence,
    title: heading,
    content_display: content(heading, entry.summary),
    country_codes: read.countries,
    ...(read.city ? { city: read.city.name, lat: read.city.lat, lng: read.city.lng } : {}),
    language: entry.language ?? reading.language,
    published_at: entry.published ?? entry.updated ?? context.now.toISOString(),
    source_url: url,
    external_ids: [`rss:${url}`],
    classification: read.classification ?? undefined,
    upstream_updated_at: entry.updated ?? undefined,
  });
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : value == null ? [] : [value]);

function xmlFeed(document: string): Entry[] {
  const root = parseXml(document, 'rss');
  if (isRecord(root.rss) || isRecord(root['rdf:RDF'])) {
    const rdf = isRecord(root['rdf:RDF']) ? root['rdf:RDF'] : null;
    const channel = rdf ? rdf.channel : (root.rss as Record<string, unknown>).channel;
    if (!isRecord(channel)) throw new ConnectorError('rss: no <channel>');
    const language = languageTag(xmlText(channel.language) || xmlText(channel['dc:language']));
    return capItems(asArray(rdf ? rdf.item : channel.item), 'rss')
      .filter(isRecord)
      .map((it) => ({
        title: xmlText(it.title, TITLE_MAX),
        summary: plainText(xmlText(it.description)),
        link: xmlText(asArray(it.link)[0]) || null,
        guid: xmlText(it.guid) || null,
        published: isoDate(xmlText(it.pubDate) || xmlText(it['dc:date'])),
        updated: null,
        language: languageTag(xmlText(it['dc:language'])) ?? language,
        categories: categoriesOf(asArray(it.category).slice(0, MAX_CATEGORIES)),
      }));
  }
  if (isRecord(root.feed)) {
    const feed = root.feed;
    const language = languageTag(feed['@_xml:lang']);
    return capItems(asArray(feed.entry), 'rss')
      .filter(isRecord)
      .map((entry) => ({
        title: xmlText(entry.title, TITLE_MAX),
        summary: plainText(xmlText(entry.summary) || xmlText(entry.content)),
        link: atomLink(entry.link),
        guid: xmlText(entry.id) || null,
        published: isoDate(xmlText(entry.published)) ?? isoDate(xmlText(entry.updated)),
        updated: isoDate(xmlText(entry.updated)),
        language: languageTag(entry['@_xml:lang']) ?? language,
        categories: categoriesOf(
          asArray(entry.category)
            .slice(0, MAX_CATEGORIES)
            .map((c) => (isRecord(c) ? (c['@_label'] ?? c['@_term'] ?? '') : c)),
        ),
      }));
  }
  throw new ConnectorError('rss: neither RSS nor Atom');
}

function atomLink(links: unknown): string | null {
  const all = asArray(links).filter(isRecord);
  const alternate = all.find((l) => !l['@_rel'] || l['@_rel'] === 'alternate') ?? all[0];
  return alternate && typeof alternate['@_href'] === 'string' ? alternate['@_href'] : null;
}

function jsonFeed(document: string): Entry[] {
  const root = parseJson(document, 'rss');
  if (!isRecord(root) || typeof root.version !== 'string' || !root.version.includes('jsonfeed.org')) {
    throw new ConnectorError('rss: JSON that is not a JSON Feed');
  }
  if (!Array.isArray(root.items)) throw new ConnectorError('rss: JSON Feed without items');
  const language = languageTag(root.language);
  return capItems(root.items, 'rss')
    .filter(isRecord)
    .map((it) => ({
      title: typeof it.title === 'string' ? it.title : '',
      summary: plainText(
        typeof it.summary === 'string'
          ? it.summary
          : typeof it.content_text === 'string'
            ? it.content_text
            : typeof it.content_html === 'string'
              ? it.content_html
              : '',
      ),
      link:
        typeof it.url === 'string' ? it.url : typeof it.external_url === 'string' ? it.external_url : null,
      guid: typeof it.id === 'string' ? it.id : null,
      published: isoDate(it.date_published) ?? isoDate(it.date_modified),
      updated: isoDate(it.date_modified),
      language: languageTag(it.language) ?? language,
      categories: categoriesOf(
        asArray(it.tags)
          .slice(0, MAX_CATEGORIES)
          .filter((t) => typeof t === 'string'),
      ),
    }));
}
