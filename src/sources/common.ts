import { XMLParser, XMLValidator } from 'fast-xml-parser';
// The light model (≈70 KB) keeps the Worker bundle small; it covers the major news languages.
import { detectAll } from 'tinyld/light';
import { ConnectorError, type ParseContext, type SourceItem } from './types';

export const TITLE_MAX = 300;
export const CONTENT_MAX = 10_000;

/** Parses a JSON document or throws `ConnectorError`. */
export function parseJson(document: string, what: string): unknown {
  try {
    return JSON.parse(stripBom(document));
  } catch {
    throw new ConnectorError(`${what}: not valid JSON`);
  }
}

export const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The array at `key` of a parsed document, or a `ConnectorError` naming what is missing. */
export function requireArray(root: unknown, key: string, what: string): unknown[] {
  const value = isRecord(root) ? root[key] : undefined;
  if (!Array.isArray(value)) throw new ConnectorError(`${what}: expected an array at "${key}"`);
  return value;
}

/**
 * XML parsing shared by GDACS and RSS/Atom. Entity expansion is off in the parser (no DOCTYPE
 * entities, so no "billion laughs"); `decodeXmlText` then resolves only the five standard
 * entities and numeric references.
 */
const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
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
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && code !== 0 ? String.fromCodePoint(code) : '';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** Text of an XML node: a string, a `#text` member, or a CDATA-wrapped value; entities decoded. */
export function xmlText(node: unknown): string {
  if (typeof node === 'string') return decodeXmlText(node).trim();
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (isRecord(node) && '#text' in node) return xmlText(node['#text']);
  return '';
}

/** Plain text from a snippet that may carry HTML: tags dropped, entities decoded, spaces collapsed. */
export function plainText(html: string): string {
  return decodeXmlText(
    html
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<br\s*\/?>|<\/p>|<\/li>|<\/h\d>/gi, '\n')
      .replace(/<[^>]*>/g, ' '),
  )
    .replace(/\u0000/g, '')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
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
    .map((part) => (part ?? '').trim())
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

const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** A language tag the ingest schema accepts ("en-GB" → "en-gb" kept; "English" → null). */
export function languageTag(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const tag = value.trim().toLowerCase().replace('_', '-');
  return LANGUAGE_TAG.test(tag) ? tag : null;
}

/** Below this `tinyld` accuracy a guess is no better than noise on headlines ("Nepal Flash Flood…" → sv). */
export const LANGUAGE_MIN_ACCURACY = 0.1;

/**
 * Language of free text with `tinyld` (letters only: digits and "|" skew it), or null when the
 * text is short or the guess is weak; a missing language is better than a wrong one.
 */
export function detectLanguage(text: string): string | null {
  const letters = text
    .replace(/[^\p{L}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (letters.length < 20) return null;
  const best = detectAll(letters)[0];
  return best && best.accuracy >= LANGUAGE_MIN_ACCURACY ? languageTag(best.lang) : null;
}

/** A lat/lng pair when both are finite and in range, else both null. */
export function point(lat: unknown, lng: unknown): { lat: number | null; lng: number | null } {
  const la = num(lat);
  const lo = num(lng);
  if (la === null || lo === null || Math.abs(la) > 90 || Math.abs(lo) > 180) return { lat: null, lng: null };
  return { lat: round(la, 5), lng: round(lo, 5) };
}

export const round = (value: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** Trims a title to the ingest limit; null when empty. */
export const title = (text: string | null | undefined): string | null => {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t ? clip(t, TITLE_MAX) : null;
};

/** Drops null optional fields so items stay minimal and strict-schema friendly. */
export function item(fields: Omit<SourceItem, 'title'> & { title?: string | null }): SourceItem {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    if (value !== null && value !== undefined) out[key] = value;
  return out as SourceItem;
}

/** A string option of the source row, or the fallback. */
export function stringOption(context: ParseContext, key: string): string | undefined {
  const value = context.source.options[key];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}
