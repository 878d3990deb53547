import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { round } from '../numbers';
import { ConnectorError, type SourceItem } from './types';

export const TITLE_MAX = 300;
export const CONTENT_MAX = 10_000;

/**
 * Most items one feed document may carry: the admin signals ingest's limit (5,000). A larger
 * document is refused whole (`TooManyItemsError`), never ingested in part: a partial ingest
 * would depend on the feed's order and silently lose the rest.
 */
export const MAX_DOCUMENT_ITEMS = 5000;

/** A document with more than `MAX_DOCUMENT_ITEMS` items: nothing from it is ingested. */
export class TooManyItemsError extends ConnectorError {
  override name = 'TooManyItemsError';
  constructor(
    readonly count: number,
    what: string,
  ) {
    super(`${what}: ${count} items, at most ${MAX_DOCUMENT_ITEMS} per document`);
  }
}

/** The document's item array, refused before any per-item work when it is over the cap. */
export function capItems<T>(items: T[], what: string): T[] {
  if (items.length > MAX_DOCUMENT_ITEMS) throw new TooManyItemsError(items.length, what);
  return items;
}

/** Parses a JSON document or throws `ConnectorError`. */
export function parseJson(document: string, what: string): unknown {
  try {
    return JSON.parse(stripBom(document));
  } catch {
    throw new ConnectorError(`${what}: not valid JSON`);
  }
}

const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The array at `key` of a parsed document, or a `ConnectorError` naming what is missing. */
export function requireArray(root: unknown, key: string, what: string): unknown[] {
  const value = isRecord(root) ? root[key] : undefined;
  if (!Array.isArray(value)) throw new ConnectorError(`${what}: expected an array at "${key}"`);
  return capItems(value, what);
}

/**
 * XML parsing shared by GDACS and RSS/Atom. Entity expansion is off in the parser (no DOCTYPE
 * entities, so no "billion laughs"); `decodeXmlText` then resolves only the five standard
 * entities and numeric references.
 */
/** Where the parser keeps CDATA sections apart from text, so they are never entity-decoded. */
const CDATA = '#cdata';

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Off, and with small limits should a later change turn it on: a DOCTYPE may declare at most a
  // few short entities and none is ever expanded, so `&lol9;` stays ten characters of text.
  processEntities: {
    enabled: false,
    maxEntityCount: 10,
    maxEntitySize: 100,
    maxExpansionDepth: 1,
    maxTotalExpansions: 100,
    maxExpandedLength: 1000,
  },
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  cdataPropName: CDATA,
  isArray: (name) => name === 'item' || name === 'entry' || name === 'link' || name === 'category',
});

/** Parses XML (BOM, CRLF and trailing comments allowed) or throws `ConnectorError`. */
export function parseXml(document: string, what: string): Record<string, unknown> {
  const text = stripBom(document).trim();
  if (!text.startsWith('<')) throw new ConnectorError(`${what}: not an XML document`);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ConnectorError(`${what}: malformed XML (${valid.err.msg})`);
  const parsed: unknown = xmlParser.parse(text);
  if (!isRecord(parsed)) throw new ConnectorError(`${what}: empty XML document`);
  return parsed;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Resolves the standard XML entities and numeric character references; others stay as written. */
function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && code !== 0 ? String.fromCodePoint(code) : '';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Raw characters read of a field stored as at most `max` characters: room for markup and
 * entities (a tag-heavy summary keeps less text, never more work).
 */
const rawBound = (max: number): number => max * 4 + 1024;

/**
 * The first `rawBound(max)` characters of raw text, without a tag or entity cut in half at the
 * end. Every per-character step (decoding, tag stripping, language detection) runs on this,
 * never on the upstream's full text: a 9 MiB description costs what a 40 KB one does.
 */
function clipRaw(text: string, max: number): string {
  const bound = rawBound(max);
  if (text.length <= bound) return text;
  return text.slice(0, bound).replace(/<[^>]*$|&#?[a-z0-9]*$/i, '');
}

/**
 * Text of an XML node (a string, a `#text` member, or a CDATA-wrapped value), clipped to the
 * raw bound of `max` and with XML entities decoded. Its markup (an RSS description's HTML) is
 * still there: `plainText`/`title` strip it.
 */
export function xmlText(node: unknown, max = CONTENT_MAX): string {
  if (typeof node === 'string') return decodeXmlText(clipRaw(node, max)).trim();
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (!isRecord(node)) return '';
  // CDATA is already literal: decoding it as well would decode its HTML's entities twice.
  const cdata = [node[CDATA]].flat().filter((part) => typeof part === 'string');
  const text = '#text' in node ? xmlText(node['#text'], max) : '';
  return [text, clipRaw(cdata.join(''), max).trim()].filter(Boolean).join(' ');
}

/**
 * The one cleaning of free text at ingest, used by every connector and the admin ingest: raw
 * text clipped to its raw bound, tags dropped, entities decoded once, spaces collapsed, then
 * clipped to `max` (default: the content bound). Titles go through `title`, which adds a
 * single-line rule on top.
 */
export function plainText(html: string, max = CONTENT_MAX): string {
  return clip(stripMarkup(clipRaw(html, max)), max);
}

function stripMarkup(html: string): string {
  return decodeXmlText(
    html
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<br\s*\/?>|<\/p>|<\/li>|<\/h\d>/gi, '\n')
      // Inline tags sit inside words and before punctuation ("<b>Testville</b>, Peru").
      .replace(/<\/?(a|abbr|b|code|em|font|i|mark|q|s|small|span|strong|sub|sup|u)\b[^>]*>/gi, '')
      .replace(/<[^>]*>/g, ' '),
  )
    .replace(/\u0000/g, '')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/**
 * Title and `content_display` of an item sent to the admin signals ingest, cleaned as connectors
 * clean theirs (tags stripped, entities decoded, once). Not clipped: a text still over its bound
 * after cleaning is the item's validation error, as before; a text far over it (beyond the raw
 * bound) is left untouched for that error rather than cleaned, and so is a text holding NUL,
 * which the validator refuses (a feed's stray NUL is dropped; an API caller's is an error).
 */
export function cleanIngestText(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const cleaned = { ...raw };
  for (const [key, max] of [
    ['title', TITLE_MAX],
    ['content_display', CONTENT_MAX],
  ] as const) {
    const value = raw[key];
    if (typeof value !== 'string' || value.length > rawBound(max) || value.includes('\u0000')) continue;
    cleaned[key] = stripMarkup(value);
    if (key === 'title') cleaned[key] = (cleaned[key] as string).replace(/\s+/g, ' ');
  }
  return cleaned;
}

/** Cuts to `max` characters on a word boundary with an ellipsis. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Joins non-empty parts into content_display, clipped to the ingest limit. */
export function content(...parts: (string | null | undefined)[]): string {
  const seen = new Set<string>();
  const kept = parts
    .map((part) => clipRaw(part ?? '', CONTENT_MAX).trim())
    .filter((part) => part && !seen.has(part) && seen.add(part));
  return clip(kept.join('\n\n'), CONTENT_MAX);
}

/** ISO 8601 UTC of a date-ish value (epoch ms, RFC 822, ISO with or without zone), else null. */
export function isoDate(value: unknown, assumeUtc = true): string | null {
  let date: Date;
  if (typeof value === 'number') date = new Date(value);
  else if (typeof value === 'string' && value.trim()) {
    const text = value.trim();
    // NVD writes UTC without a zone designator; JavaScript would read that as local time.
    const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
    const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
    date = new Date(
      zoneless && assumeUtc ? `${text}Z` : dateOnly ? `${text}T00:00:00Z` : text.replace(/\bUT\b/, 'GMT'),
    );
  } else return null;
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An http(s) URL or null. */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = decodeXmlText(value.trim());
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && text.length <= 2000 ? url.href : null;
  } catch {
    return null;
  }
}

/** A finite number from a number or numeric string, else null. */
export function num(value: unknown): number | null {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** A lat/lng pair when both are finite and in range, else both null. */
export function point(lat: unknown, lng: unknown): { lat: number | null; lng: number | null } {
  const la = num(lat);
  const lo = num(lng);
  if (la === null || lo === null || Math.abs(la) > 90 || Math.abs(lo) > 180) return { lat: null, lng: null };
  return { lat: round(la, 5), lng: round(lo, 5) };
}

/**
 * A title from raw upstream text: `plainText` cleaning (tags stripped, entities decoded, once),
 * on one line, clipped to the ingest limit; null when empty. Pass it the raw text, not text
 * already cleaned: decoding twice would turn a literal "&amp;lt;" into "<".
 */
export const title = (text: string | null | undefined): string | null => {
  const t = plainText(text ?? '', TITLE_MAX)
    .replace(/\s+/g, ' ')
    .trim();
  return t || null;
};

/** Drops null optional fields so items stay minimal and strict-schema friendly. */
export function item(fields: Omit<SourceItem, 'title'> & { title?: string | null }): SourceItem {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    if (value !== null && value !== undefined) out[key] = value;
  return out as SourceItem;
}
