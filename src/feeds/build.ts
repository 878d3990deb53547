import { Feed, type Category, type Item } from 'feed';
import type { SignalRow } from '../signals/query';
import { cdataSafe, escapeHtml, httpUrl, xmlSafe } from './text';

export const FEED_FORMATS = ['rss', 'atom', 'json'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

export const FEED_CONTENT_TYPES: Record<FeedFormat, string> = {
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  json: 'application/feed+json; charset=utf-8',
};

export interface FeedContext {
  /** The public origin, without a trailing slash: item links point there. */
  baseUrl: string;
  /** This feed's own address (without any `api_key`). */
  selfUrl: string;
  /** What the filters select, for the feed's description, e.g. `layers cyber; country UA`. */
  filterSummary: string;
  /** The feed's time when it has no items (with items it is the newest item's time). */
  now: Date;
}

const JSON_FEED_1_1 = 'https://jsonfeed.org/version/1.1';
const TITLE = 'Signal Intelligence: latest signals';
const scheme = (name: string) => `urn:signal-intel:${name}`;

/** The signal's facets as categories: RSS uses `domain`, Atom `scheme`/`term`, JSON Feed `name`. */
function categories(row: SignalRow, format: FeedFormat): Category[] {
  const facets: [string, string][] = [
    ['threat_layer', row.threatLayer],
    ['significance_score', String(row.significanceScore)],
    ['signal_valence', row.signalValence],
    ...row.countryCodes.map((code): [string, string] => ['country', code]),
    ['event_id', row.eventId],
    ['corroboration', String(row.corroboration)],
  ];
  return facets.map(([facet, value]) => ({
    name: format === 'rss' ? value : `${facet}:${value}`,
    domain: facet,
    scheme: scheme(facet),
    term: value,
  }));
}

/** The item body as HTML, every text escaped; the only link is the original source (http(s) only). */
function contentHtml(row: SignalRow): string {
  const source = httpUrl(row.sourceUrl);
  const sourceName = escapeHtml(row.sourceName);
  const facts = [
    `Layer: ${escapeHtml(row.threatLayer)}`,
    `score ${row.significanceScore}`,
    `valence: ${escapeHtml(row.signalValence)}`,
    ...(row.countryCodes.length ? [`countries: ${row.countryCodes.map(escapeHtml).join(', ')}`] : []),
    ...(row.isAnomaly ? ['anomaly'] : []),
    `reported by ${row.corroboration} independent publisher${row.corroboration === 1 ? '' : 's'}`,
  ];
  return [
    `<p>${escapeHtml(row.contentDisplay)}</p>`,
    `<p>${facts.join(' · ')}</p>`,
    `<p>Source: ${source ? `<a href="${escapeHtml(source)}">${sourceName}</a>` : sourceName}</p>`,
  ].join('');
}

/**
 * Renders signals (newest first) as RSS 2.0, Atom 1.0 or JSON Feed 1.1 through the `feed`
 * package. Text is cleaned of what XML cannot carry; HTML fields are escaped here, plain-text
 * fields are left to the serializer. `updated` is the newest signal's time, so an unchanged
 * selection renders byte-identically and keeps its ETag; an empty feed says the current time.
 */
export function renderFeed(rows: SignalRow[], format: FeedFormat, context: FeedContext): string {
  const clean = format === 'json' ? (text: string) => text : xmlSafe;
  const updated = rows.length
    ? rows.reduce(
        (latest, row) => (row.publishedAt > latest ? row.publishedAt : latest),
        rows[0]!.publishedAt,
      )
    : context.now;
  const feed = new Feed({
    id: context.selfUrl,
    title: TITLE,
    description: `Signals from the Signal Intelligence API, newest first${context.filterSummary ? ` (${context.filterSummary})` : ''}.`,
    link: `${context.baseUrl}/api/v1/docs`,
    language: 'en',
    updated,
    ttl: 5,
    generator: 'Signal Intelligence API',
    feedLinks: { [format]: context.selfUrl },
    // Atom needs an author for the feed or every entry; RSS would want an email, so it has none.
    author: { name: 'Signal Intelligence API', link: `${context.baseUrl}/api/v1/docs` },
  });
  for (const row of rows) {
    // A reader's click must land on a public page: the original item, never the keyed API.
    const link = httpUrl(row.sourceUrl) ?? `${context.baseUrl}/api/v1/docs`;
    const item: Item = {
      // Atom's title is declared type="html" by the package, so it gets escaped HTML there.
      title:
        format === 'atom'
          ? escapeHtml(clean(row.title))
          : format === 'rss'
            ? cdataSafe(clean(row.title))
            : row.title,
      id: `urn:uuid:${row.id}`,
      guid: `urn:uuid:${row.id}`,
      link,
      date: row.publishedAt,
      published: row.publishedAt,
      description: clean(contentHtml(row)),
      category: categories(row, format),
      ...(format === 'atom' ? { author: [{ name: clean(row.sourceName) }] } : {}),
    };
    if (format === 'json') {
      item.extensions = [
        {
          name: '_signal',
          objects: {
            about: `${context.baseUrl}/api/v1/docs`,
            threat_layer: row.threatLayer,
            significance_score: row.significanceScore,
            signal_valence: row.signalValence,
            country_codes: row.countryCodes,
            is_anomaly: row.isAnomaly,
            source_url: row.sourceUrl,
            source_name: row.sourceName,
            event_id: row.eventId,
            corroboration: row.corroboration,
          },
        },
      ];
    }
    feed.addItem(item);
  }
  if (format === 'rss') return feed.rss2();
  if (format === 'atom') return feed.atom1();
  return toJsonFeed11(feed.json1(), rows);
}

/**
 * The package writes JSON Feed 1.0; 1.1 adds `language` and `external_url` and replaces
 * `author` with `authors`, so the upgrade is a few fields on the same document.
 */
function toJsonFeed11(json: string, rows: SignalRow[]): string {
  const document = JSON.parse(json) as { items: Record<string, unknown>[] } & Record<string, unknown>;
  const external = new Map(rows.map((row) => [`urn:uuid:${row.id}`, row]));
  const { author, ...rest } = document;
  const upgraded = {
    ...rest,
    version: JSON_FEED_1_1,
    language: 'en',
    ...(author ? { authors: [author] } : {}),
    items: document.items.map((item) => {
      const row = external.get(String(item.id))!;
      return {
        ...item,
        content_text: row.contentDisplay,
        external_url: row.sourceUrl,
        authors: [{ name: row.sourceName }],
      };
    }),
  };
  return JSON.stringify(upgraded, null, 2);
}
