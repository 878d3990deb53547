/**
 * Casualty figures in news text: digits ("44", "1,200", "1.200") and each language's number words
 * ("dozens", "fünf", "пятеро"), next to a word that says dead, hurt or missing, in either order
 * ("25 killed", "kills 25", "death toll rises to 181"). The most conservative figure of each
 * kind is kept: reports disagree and the smallest is the one the text vouches for.
 */

export interface Casualties {
  dead: number | null;
  hurt: number | null;
  missing: number | null;
  /** The phrases the figures came from. */
  evidence: string[];
}

/** The casualty count the severity level reads: the dead, and a third of the hurt and the missing. */
export const casualtyCount = (c: Casualties): number =>
  (c.dead ?? 0) + ((c.hurt ?? 0) + (c.missing ?? 0)) / 3;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A term of the data files as a regex fragment (trailing `*` = any ending). */
function fragment(term: string): string {
  const tail = term.endsWith('*');
  const body = escape(term.replace(/\*$/, '').toLowerCase()).replace(/\s+/g, '\\s+');
  return tail ? `${body}[\\p{L}-]*` : body;
}

const DIGITS = '\\d{1,3}(?:[,.\\u00a0\\u202f ]\\d{3})+|\\d+';
/** Up to this many words between a figure and its casualty word ("44 people were killed"). */
const GAP = "(?:[\\s,]+(?:[\\p{L}\\p{N}'’-]+)){0,3}?";

export interface CasualtyMatcher {
  kinds: {
    kind: 'dead' | 'hurt' | 'missing';
    after: RegExp | null;
    before: RegExp | null;
    /** The casualty words' letters: a text with none of them skips the patterns. */
    cores: string[];
  }[];
  single: RegExp | null;
  numbers: Map<string, number>;
}

interface CasualtyWords {
  after: string[];
  before: string[];
  single?: string[];
}

/** What a language's data file (data/<lang>/reading.json) gives the casualty reader. */
export interface CasualtyData {
  numbers: Record<string, number>;
  casualties: { dead?: CasualtyWords; hurt?: CasualtyWords; missing?: CasualtyWords };
}

export function casualtyMatcher(rules: CasualtyData): CasualtyMatcher {
  const numbers = new Map(Object.entries(rules.numbers).map(([w, n]) => [w.toLowerCase(), n]));
  const words = [...numbers.keys()].sort((a, b) => b.length - a.length).map(fragment);
  const num = `(${DIGITS}${words.length ? `|${words.join('|')}` : ''})`;
  const edge = '(?<![\\p{L}\\p{N}])';
  const end = '(?![\\p{L}\\p{N}])';
  const alt = (terms: readonly string[]): string | null =>
    terms.length
      ? `(?:${[...terms]
          .sort((a, b) => b.length - a.length)
          .map(fragment)
          .join('|')})`
      : null;
  const kinds = (['dead', 'hurt', 'missing'] as const).map((kind) => {
    const spec = rules.casualties[kind];
    const after = spec ? alt(spec.after) : null;
    const before = spec ? alt(spec.before) : null;
    const cores = spec ? [...spec.after, ...spec.before].map((w) => w.replace(/\*$/, '').toLowerCase()) : [];
    return {
      kind,
      cores,
      after: after ? new RegExp(`${edge}${num}${GAP}[\\s,]+${after}${end}`, 'giu') : null,
      before: before
        ? new RegExp(`${edge}${before}(?:[\\s,:]+[\\p{L}'’-]+){0,4}?[\\s,:]+${num}${end}`, 'giu')
        : null,
    };
  });
  const single = rules.casualties.dead?.single?.length
    ? new RegExp(`${edge}${alt(rules.casualties.dead.single)}${end}`, 'iu')
    : null;
  return { kinds, single, numbers };
}

/** The value of a figure: digits with thousands separators, or a number word. */
function figure(text: string, numbers: Map<string, number>): number | null {
  const t = text.toLowerCase().replace(/\s+/g, ' ');
  if (/^\d/.test(t)) {
    const n = Number(t.replace(/[,.\u00a0\u202f ]/g, ''));
    return Number.isFinite(n) ? n : null;
  }
  return numbers.get(t) ?? null;
}

/** Casualties in a text (headline and summary): bounded by the text, one pass per pattern. */
export function findCasualties(text: string, matcher: CasualtyMatcher): Casualties {
  const out: Casualties = { dead: null, hurt: null, missing: null, evidence: [] };
  const lower = text.toLowerCase();
  for (const { kind, after, before, cores } of matcher.kinds) {
    if (!cores.some((core) => lower.includes(core))) continue;
    for (const pattern of [after, before]) {
      if (!pattern) continue;
      pattern.lastIndex = 0;
      for (const m of text.matchAll(pattern)) {
        const n = figure(m[1] ?? '', matcher.numbers);
        // Years and other large numbers next to a casualty word are dates, not counts.
        if (n === null || n <= 0 || n > 1_000_000 || (n >= 1900 && n <= 2100 && /^\d{4}$/.test(m[1] ?? '')))
          continue;
        out[kind] = out[kind] === null ? n : Math.min(out[kind], n);
        out.evidence.push(m[0].trim());
      }
    }
  }
  if (out.dead === null && matcher.single?.test(text)) {
    out.dead = 1;
    out.evidence.push(matcher.single.exec(text)?.[0] ?? '');
  }
  return out;
}
