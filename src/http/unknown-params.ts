import type { MiddlewareHandler } from 'hono';
import { invalidRequest } from './problem';

/**
 * Parameters any endpoint lets through without declaring them: campaign tracking (`utm_*`,
 * added by link shorteners and newsletters) and jQuery-style cache busting (`_`). They never
 * change an answer, so refusing them would only break links users did not write.
 */
export const isPassThroughParam = (name: string) => name === '_' || name.startsWith('utm_');

/** `min_score`, `minScore` and `min-score` are one spelling to this. */
const folded = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

/** Levenshtein distance, stopping early once it exceeds `limit` (names are short). */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    if (Math.min(...current) > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The declared parameter a caller most likely meant by `name`: the same word in another case
 * or separator style (`minScore` → `min_score`), else the nearest by edit distance (`layer` →
 * `layers`, `contry` → `country`), at most one edit for short names and two for longer ones.
 * @example suggestParam('min_score', ['layer', 'minScore']) // 'minScore'
 */
export function suggestParam(name: string, known: readonly string[]): string | undefined {
  const same = known.find((candidate) => folded(candidate) === folded(name));
  if (same) return same;
  const limit = name.length <= 4 ? 1 : 2;
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    const edits = distance(folded(name), folded(candidate), limit);
    if (edits <= limit && (!best || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

/** Query strings whose names need no decoding: no `%`, `+` or `#`. */
const PLAIN_QUERY = /^[^%+#]*$/;

/**
 * The parameter names of `url`'s query, as `URLSearchParams` reads them. Every request runs
 * this, and most queries are plain (`limit=50&layers=cyber`): their names are split out as
 * written instead of parsing the whole URL, which cost a keyed /signals request as much as
 * the rest of this check.
 */
function queryNames(url: string): string[] {
  const start = url.indexOf('?');
  if (start < 0) return [];
  const query = url.slice(start + 1);
  if (!PLAIN_QUERY.test(query)) return [...new URL(url).searchParams.keys()];
  const names: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    names.push(equals < 0 ? part : part.slice(0, equals));
  }
  return names;
}

const HEADER_KEY = new Set(['api_key', 'apikey', 'key', 'token', 'access_token']);

/**
 * Answers a query parameter the route does not declare with a 400 `invalid_request` naming it
 * (and the parameter meant, when one is close) instead of ignoring it: an ignored misspelling
 * (`layers` where `layer` is read) silently returns unfiltered data the caller then trusts.
 * `createRouter` puts it on every route from the route's own query schema.
 */
export function rejectUnknownParams(declared: readonly string[]): MiddlewareHandler {
  const known = new Set(declared);
  return async (c, next) => {
    const unknown = [...new Set(queryNames(c.req.url))].filter(
      (name) => !known.has(name) && !isPassThroughParam(name),
    );
    if (unknown.length === 0) return next();
    const errors = unknown.map((name) => {
      const meant = suggestParam(name, declared);
      const hint = meant
        ? `; did you mean \`${meant}\`?`
        : HEADER_KEY.has(name.toLowerCase())
          ? '; send the API key in the `X-Api-Key` header (only /api/v1/feed accepts `?api_key=`)'
          : '';
      return { path: name, message: `unknown parameter${hint}` };
    });
    const accepted = declared.length > 0 ? `it takes ${declared.join(', ')}` : 'it takes no query parameters';
    throw invalidRequest(
      errors,
      `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for ${c.req.path}: ${accepted}.`,
    );
  };
}
