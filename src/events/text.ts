/**
 * How two news items are compared (src/events/README.md, "News similarity"): a lexical measure
 * over words, word pairs and character fragments of headline and summary, with names (places,
 * actors) weighted up, numbers normalised and attribution suffixes stripped. Pure functions.
 */
import { ara, deu, eng, fra, ita, nld, por, rus, spa, ukr } from 'stopword';
import { CYRILLIC_LATIN, CYRILLIC as HAS_CYRILLIC, UKRAINIAN } from '../reading/places-text';
import { NEWS } from './rules';

/** Words too common to tell stories apart, in every language the feeds carry (one set: headlines mix). */
const STOP_WORDS: ReadonlySet<string> = new Set(
  [eng, deu, fra, spa, por, ita, nld, rus, ukr, ara].flat().map((w) => w.toLowerCase()),
);

/** What a text comparison needs of one item, computed once per item. */
export interface TextFeatures {
  /** Stemmed content words with their weights (names weigh more). */
  words: Map<string, number>;
  /** Adjacent content-word pairs of the headline and summary, hashed, sorted, distinct. */
  pairs: Uint32Array;
  /** Character fragments of the content words, hashed, sorted, distinct. */
  grams: Uint32Array;
  /** The headline's content words in order (containment of a truncated headline). */
  headline: string[];
  /** True when the headline was visibly cut (ends in an ellipsis). */
  truncated: boolean;
  wordNorm: number;
  /** The headline's weighted words alone (a headline says what the story is; a summary drifts). */
  head: Map<string, number>;
  headNorm: number;
}

/**
 * A trailing " - Reuters", " | BBC News", " — The New York Times": a short run of capitalised
 * words after a dash or bar, the way aggregators name the outlet.
 */
const ATTRIBUTION =
  /\s+[-–—|]\s+(?:the\s+)?[\p{Lu}\p{N}][\p{L}\p{N}.&'’]*(?:\s+[\p{Lu}\p{N}&][\p{L}\p{N}.&'’]*){0,3}\s*$/u;

/** The headline without the outlet's name appended to it. */
export function stripAttribution(title: string): string {
  const stripped = title.replace(ATTRIBUTION, '');
  // A headline that is nothing but "Word - Word" keeps its text.
  return stripped.trim().length >= 12 ? stripped.trim() : title.trim();
}

const ELLIPSIS = /(?:\.{3}|…)\s*$/u;
const TOKEN = /[\p{L}\p{M}]+|\p{N}+(?:[.,]\p{N}+)*/gu;

interface Token {
  key: string;
  name: boolean;
  number: boolean;
}

/**
 * Cyrillic letters in Latin as the Ukrainian national romanisation writes them, so a name compares
 * across scripts: Львів/Lviv, Дніпро/Dnipro, Харків/Kharkiv. The gazetteer's table
 * (src/reading/places-text.ts) where they differ: и is y, й is i, х is kh, є/ю/я are ie/iu/ia. `г`
 * is `h` in a word with a Ukrainian letter (Ріг/Rih), else `g` (Russian: Белгород/Belgorod).
 */
const CYRILLIC: Readonly<Record<string, string>> = {
  ...CYRILLIC_LATIN,
  и: 'y',
  й: 'i',
  х: 'kh',
  є: 'ie',
  ю: 'iu',
  я: 'ia',
  ʼ: '',
};

/** A lower-cased word in Latin letters (unchanged unless Cyrillic). */
function latin(word: string): string {
  if (!HAS_CYRILLIC.test(word)) return word;
  const ukrainian = UKRAINIAN.test(word);
  let out = '';
  for (const ch of word) out += ch === 'г' && ukrainian ? 'h' : (CYRILLIC[ch] ?? ch);
  return out;
}

/** Crude cross-language stemming: a long word is known by its first letters (Magdeburg/Magdeburger). */
const stem = (word: string): string =>
  word.length > NEWS.stemLength ? word.slice(0, NEWS.stemLength) : word;

function tokens(text: string): Token[] {
  const out: Token[] = [];
  const normal = text.normalize('NFKC');
  for (const match of normal.matchAll(TOKEN)) {
    const raw = match[0];
    if (/^\p{N}/u.test(raw)) {
      // 1,000 and 1.000 and 1000 are one number; decimals keep their digits.
      out.push({ key: `#${raw.replace(/[.,](?=\p{N}{3}(?!\p{N}))/gu, '')}`, name: false, number: true });
      continue;
    }
    const lower = raw.toLowerCase();
    if (lower.length < 2 || STOP_WORDS.has(lower)) continue;
    // A capitalised word that does not open a sentence is a name: a place or an actor.
    const opening = /(?:^|[.!?:;\n"«“]\s*)$/u.test(normal.slice(Math.max(0, match.index - 3), match.index));
    out.push({ key: stem(latin(lower)), name: raw[0] !== lower[0] && !opening, number: false });
  }
  return out;
}

/**
 * FNV-1a over UTF-16 units: word pairs and fragments compare as 32-bit numbers (a collision
 * between two fragments of two short texts is rare enough to move no similarity measurably).
 */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Sorted, without repeats. */
function sortedSet(values: number[]): Uint32Array {
  const sorted = Uint32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++)
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.subarray(0, n);
}

/** Features of one item's headline and summary (the summary may repeat the headline). */
export function textFeatures(title: string, summary: string): TextFeatures {
  const truncated = ELLIPSIS.test(title);
  const headlineText = stripAttribution(title.replace(ELLIPSIS, ''));
  let body = summary.trim();
  if (body.startsWith(title.trim())) body = body.slice(title.trim().length);
  body = body.slice(0, NEWS.summaryChars);
  const head = tokens(headlineText);
  // A cut headline's last word may itself be cut: it is not compared as a word.
  const headWords = (truncated ? head.slice(0, -1) : head).filter((t) => !t.number);
  const all = [...head, ...tokens(body)];
  const words = new Map<string, number>();
  for (const t of all) {
    const weight = t.number ? NEWS.numberWeight : t.name ? NEWS.nameWeight : 1;
    words.set(t.key, Math.max(words.get(t.key) ?? 0, weight));
  }
  const pairs: number[] = [];
  for (const list of [head, tokens(body)]) {
    for (let i = 1; i < list.length; i++) pairs.push(hash(`${list[i - 1]!.key} ${list[i]!.key}`));
  }
  const grams: number[] = [];
  for (const t of all) {
    if (t.number) continue;
    const padded = `_${t.key}_`;
    for (let i = 0; i + NEWS.gramLength <= padded.length; i++)
      grams.push(hash(padded.slice(i, i + NEWS.gramLength)));
  }
  const headMap = new Map<string, number>();
  for (const t of head) {
    if (t.number) continue;
    headMap.set(t.key, Math.max(headMap.get(t.key) ?? 0, t.name ? NEWS.nameWeight : 1));
  }
  let norm = 0;
  for (const w of words.values()) norm += w * w;
  let headNorm = 0;
  for (const w of headMap.values()) headNorm += w * w;
  return {
    words,
    pairs: sortedSet(pairs),
    grams: sortedSet(grams),
    headline: headWords.map((t) => t.key),
    truncated,
    wordNorm: Math.sqrt(norm),
    head: headMap,
    headNorm: Math.sqrt(headNorm),
  };
}

/** Cosine of two weighted word sets; 0 when they share fewer than `least` words. */
function cosine(
  a: Map<string, number>,
  aNorm: number,
  b: Map<string, number>,
  bNorm: number,
  least = 1,
): number {
  if (aNorm === 0 || bNorm === 0) return 0;
  // Called for every pair of texts a batch compares: no [small, large] pair, no [key, weight]
  // entry per word (they were a tenth of what a batch allocates).
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  let dot = 0;
  let shared = 0;
  small.forEach((weight, key) => {
    const other = large.get(key);
    if (other !== undefined) {
      dot += weight * other;
      shared++;
    }
  });
  return shared < least ? 0 : dot / (aNorm * bNorm);
}

/** Dice overlap of two sorted, distinct hash lists (one merge pass, no lookups). */
function dice(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return (2 * shared) / (a.length + b.length);
}

/**
 * True when `short`'s headline is the other's cut short: a visibly cut headline (an ellipsis)
 * found anywhere in the other's, or any headline of enough words that opens the other's.
 */
function containsHeadline(short: TextFeatures, long: TextFeatures): boolean {
  const needle = short.headline;
  const hay = long.headline;
  const least = short.truncated ? NEWS.containedMinWords : NEWS.prefixMinWords;
  if (needle.length < least || needle.length >= hay.length) return false;
  const last = short.truncated ? hay.length - needle.length : 0;
  outer: for (let i = 0; i <= last; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Similarity of two items in [0, 1]: a weighted mean of the cosine of their weighted words,
 * the Dice overlap of their word pairs and of their character fragments; or, when higher, the
 * (discounted) cosine of their headlines' weighted words alone. A headline cut short and
 * contained in the other counts as 1.
 */
export function similarity(a: TextFeatures, b: TextFeatures): number {
  if (containsHeadline(a, b) || containsHeadline(b, a)) return 1;
  const whole =
    NEWS.mix.words * cosine(a.words, a.wordNorm, b.words, b.wordNorm) +
    NEWS.mix.pairs * dice(a.pairs, b.pairs) +
    NEWS.mix.grams * dice(a.grams, b.grams);
  const headlines =
    NEWS.headlineWeight * cosine(a.head, a.headNorm, b.head, b.headNorm, NEWS.headlineMinShared);
  return Math.max(whole, headlines);
}
