/**
 * Term lists of the language data files compiled to regexes. A term matches whole words,
 * case-insensitively; a trailing `*` allows any word ending ("strike*" → "strikes"), a leading
 * `*` any word beginning ("*anschlag" → "Terroranschlag", for German compounds). Languages that
 * attach clitics to the word (Arabic و/ب/ل/ال) list them as `prefixes`.
 */
export interface Term {
  term: string;
  pattern: RegExp;
  /** The term's letters without wildcards: a text lacking them cannot match (a cheap pre-check). */
  core: string;
}

/** A text with its lower-case, single-spaced form, made once and tested against many terms. */
export interface Text {
  raw: string;
  lower: string;
}

export const text = (raw: string): Text => ({ raw, lower: raw.toLowerCase().replace(/\s+/g, ' ') });

/** Most terms are absent from most texts: `includes` rules them out before the regex runs. */
export const has = (term: Term, t: Text): boolean =>
  t.lower.includes(term.core) && term.pattern.test(t.lower);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function termPattern(term: string, prefixes: readonly string[] = []): RegExp {
  let core = term.trim().toLowerCase();
  const head = core.startsWith('*');
  const tail = core.endsWith('*');
  core = core.replace(/^\*|\*$/g, '');
  const body = escape(core).replace(/\s+/g, '\\s+');
  const clitics = prefixes.length ? `(?:${prefixes.map(escape).join('|')})?` : '';
  const start = head ? '[\\p{L}\\p{N}-]*' : clitics;
  const end = tail ? '[\\p{L}\\p{N}-]*' : '';
  // Tested on the lower-cased text (`has`): without the `i` flag V8 scans an order of magnitude faster.
  return new RegExp(`(?<![\\p{L}\\p{N}])${start}${body}${end}(?![\\p{L}\\p{N}])`, 'u');
}

export function compileTerms(terms: readonly string[], prefixes?: readonly string[]): Term[] {
  return terms.map((term) => ({
    term,
    pattern: termPattern(term, prefixes),
    core: term
      .trim()
      .toLowerCase()
      .replace(/^\*|\*$/g, '')
      .replace(/\s+/g, ' '),
  }));
}

/** The terms found in a text, in list order. */
export function found(terms: readonly Term[], t: Text): string[] {
  const out: string[] = [];
  for (const term of terms) if (has(term, t)) out.push(term.term);
  return out;
}

export const anyIn = (terms: readonly Term[], t: Text): boolean => terms.some((term) => has(term, t));
