/**
 * Term lists of the language data files compiled to regexes. A term matches whole words,
 * case-insensitively; a trailing `*` allows any word ending ("strike*" → "strikes"), a leading
 * `*` any word beginning ("*anschlag" → "Terroranschlag", for German compounds). Languages that
 * attach clitics to the word (Arabic و/ب/ل/ال) list them as `prefixes`.
 */
export interface Term {
  term: string;
  pattern: RegExp;
  /** The term's letters without wildcards. */
  core: string;
  head: boolean;
  tail: boolean;
  prefixes: readonly string[];
}

/** A text with its lower-case, single-spaced form, made once and tested against many terms. */
export interface Text {
  raw: string;
  lower: string;
}

export const text = (raw: string): Text => ({ raw, lower: raw.toLowerCase().replace(/\s+/g, ' ') });

const WORD = /[\p{L}\p{N}]/u;
const wordAt = (s: string, i: number): boolean => i >= 0 && i < s.length && WORD.test(s[i]!);

/**
 * True when the term occurs in the text as `pattern` would match it, without running a regex:
 * `indexOf` finds the letters and only the characters at both edges are checked, so a text
 * costs one scan per term (the regexes' Unicode look-behind is ten times slower).
 */
export function has(term: Term, t: Text): boolean {
  const { lower } = t;
  for (let i = lower.indexOf(term.core); i !== -1; i = lower.indexOf(term.core, i + 1)) {
    const end = i + term.core.length;
    if (!term.tail && wordAt(lower, end)) continue;
    if (term.head || !wordAt(lower, i - 1)) return true;
    for (const p of term.prefixes) {
      if (lower.startsWith(p, i - p.length) && !wordAt(lower, i - p.length - 1)) return true;
    }
  }
  return false;
}

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
  // Lower-case terms on lower-cased text: the `i` flag would make V8 scan far slower.
  return new RegExp(`(?<![\\p{L}\\p{N}])${start}${body}${end}(?![\\p{L}\\p{N}])`, 'u');
}

export function compileTerms(terms: readonly string[], prefixes: readonly string[] = []): Term[] {
  return terms.map((term) => {
    const clean = term.trim().toLowerCase();
    return {
      term,
      pattern: termPattern(term, prefixes),
      core: clean.replace(/^\*|\*$/g, '').replace(/\s+/g, ' '),
      head: clean.startsWith('*'),
      tail: clean.endsWith('*'),
      prefixes,
    };
  });
}

/** The terms found in a text, in list order. */
export function found(terms: readonly Term[], t: Text): string[] {
  const out: string[] = [];
  for (const term of terms) if (has(term, t)) out.push(term.term);
  return out;
}

export const anyIn = (terms: readonly Term[], t: Text): boolean => terms.some((term) => has(term, t));

/**
 * Many terms matched against one text in a single pass: terms are filed under their first three
 * letters, and only the terms filed under the letters at each word start (or after a clitic) are
 * compared there. Same matches as `has` for every term; a term that may begin inside a word
 * (`*anschlag`) or does not begin with a letter is checked with `has`.
 */
export class TermIndex<T extends Term> {
  private readonly byKey = new Map<string, T[]>();
  private readonly loose: T[] = [];
  private readonly prefixes: readonly string[];

  constructor(terms: readonly T[]) {
    this.prefixes = terms[0]?.prefixes ?? [];
    for (const term of terms) {
      if (term.head || term.core.length === 0 || !WORD.test(term.core[0]!)) {
        this.loose.push(term);
        continue;
      }
      const key = term.core.slice(0, 3);
      const list = this.byKey.get(key);
      if (list) list.push(term);
      else this.byKey.set(key, [term]);
    }
  }

  /** The terms found in the text. */
  matches(t: Text): Set<T> {
    const out = new Set<T>();
    const { lower } = t;
    for (const term of this.loose) if (has(term, t)) out.add(term);
    for (let i = 0; i < lower.length; i++) {
      if (!wordAt(lower, i) || wordAt(lower, i - 1)) continue;
      this.at(lower, i, out);
      for (const p of this.prefixes) if (lower.startsWith(p, i)) this.at(lower, i + p.length, out);
    }
    return out;
  }

  private at(lower: string, i: number, out: Set<T>): void {
    for (let n = 1; n <= 3; n++) {
      const list = this.byKey.get(lower.slice(i, i + n));
      if (!list) continue;
      for (const term of list) {
        if (out.has(term) || !lower.startsWith(term.core, i)) continue;
        if (!term.tail && wordAt(lower, i + term.core.length)) continue;
        out.add(term);
      }
    }
  }
}
