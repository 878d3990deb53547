/**
 * The model's view of one news item (used by training, scripts/reader/train.ts, and at run time,
 * ./read.ts): hashed word uni- and bigrams and character 3–5-grams of headline and summary (the
 * headline weighs more; character grams carry Russian, Ukrainian and German word forms), plus the
 * facts the rules read well: the event kinds named, casualty figures (bucketed), hedges, scope,
 * places found, the feed's own categories, the link's sections, the language and the headline's
 * form. Every feature is hashed into `DIMENSION` buckets (FNV-1a), so the model is a fixed table.
 * The outlet's name at the end of a headline is left out and each vector has the same length, so
 * the model learns what the news says rather than who wrote it or how much.
 * Pure, linear in the clipped text, and the same code on Node and in the Workers.
 */
import type { Casualties } from './casualties';
import { fold } from './places-text';

/** Hash buckets: 2^16 keeps the int8 weight table near 0.7 MiB gzipped (2^17 took 1.4 MiB). */
const FEATURE_BITS = 16;
export const DIMENSION = 1 << FEATURE_BITS;
/** Only this much of the summary is read into features (the labelled summaries are clipped so). */
const SUMMARY_FEATURE_CHARS = 300;

/** The facts a reading states before the model decides (./read.ts `readFacts`). */
export interface ReadFacts {
  language: string | null;
  /** The rule set used for the facts (null: a language without rules). */
  readAs: string | null;
  /** Event kinds whose words occur, with their layer; `head` when the headline names them. */
  kinds: { kind: string; layer: string; head: boolean }[];
  casualties: Casualties;
  hedges: string[];
  scope: boolean;
  /** Countries the gazetteer (or the feed) found. */
  countries: number;
}

export interface FeatureInput {
  title: string;
  summary: string;
  link?: string | null;
  categories?: readonly string[];
  facts: ReadFacts;
}

/** A sparse vector: bucket indexes (distinct) and their values. */
export interface Features {
  index: Int32Array;
  value: Float32Array;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashFrom(seed: number, text: string): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** The bucket of a named feature (`kind:shooting`, `sec:opinion`). */
const bucketOf = (name: string): number => hashFrom(FNV_OFFSET, name) & (DIMENSION - 1);

const SEEDS = {
  titleWord: hashFrom(FNV_OFFSET, 'tw:'),
  titlePair: hashFrom(FNV_OFFSET, 'tp:'),
  titleGram: hashFrom(FNV_OFFSET, 'tg:'),
  bodyWord: hashFrom(FNV_OFFSET, 'sw:'),
  bodyPair: hashFrom(FNV_OFFSET, 'sp:'),
  bodyGram: hashFrom(FNV_OFFSET, 'sg:'),
};

/** Group weights: each group's features share its weight (value = weight / √count). */
const WEIGHT = { titleWord: 1, titlePair: 0.5, titleGram: 1, bodyWord: 0.5, bodyPair: 0.25, bodyGram: 0.5 };

const TOKEN = /[\p{L}\p{N}]+/gu;
const DIGITS = /^\p{N}+$/u;

/** Folded word tokens; a number becomes its digit count (`#2`), so figures generalise. */
function tokensOf(text: string): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(TOKEN)) {
    const w = m[0];
    out.push(DIGITS.test(w) ? `#${Math.min(w.length, 5)}` : w);
  }
  return out;
}

/** A scratch accumulator over the buckets, reused: reading is synchronous, so one suffices. */
const scratch = new Float64Array(DIMENSION);
const touched: number[] = [];

function add(bucket: number, value: number): void {
  if (scratch[bucket] === 0) touched.push(bucket);
  scratch[bucket] = scratch[bucket]! + value;
}

function addGroup(buckets: number[], weight: number): void {
  if (buckets.length === 0) return;
  const v = weight / Math.sqrt(buckets.length);
  for (const b of buckets) add(b, v);
}

const MASK = DIMENSION - 1;

function textGroups(tokens: string[], seeds: [number, number, number], weights: [number, number, number]) {
  const words: number[] = [];
  const pairs: number[] = [];
  const grams: number[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const w = tokens[t]!;
    words.push(hashFrom(seeds[0], w) & MASK);
    if (t > 0) pairs.push(hashFrom(hashFrom(seeds[1], tokens[t - 1]!), ` ${w}`) & MASK);
    if (w.charCodeAt(0) === 35) continue; // "#2": no grams of a number
    // Character 3–5-grams of " word ", hashed incrementally from each start.
    const padded = ` ${w} `;
    for (let i = 0; i + 3 <= padded.length; i++) {
      let h = seeds[2];
      for (let j = i; j < padded.length && j < i + 5; j++) {
        h = Math.imul(h ^ padded.charCodeAt(j), FNV_PRIME);
        if (j - i >= 2) grams.push((h >>> 0) & MASK);
      }
    }
  }
  addGroup(words, weights[0]);
  addGroup(pairs, weights[1]);
  addGroup(grams, weights[2]);
}

const bucketName = (value: number, edges: readonly number[]): string => {
  let i = 0;
  while (i < edges.length && value >= edges[i]!) i++;
  return String(i);
};
const CASUALTY_EDGES = [1, 2, 5, 20, 100, 1000];

/** Sections of the link's path before the slug (`/world/europe/…` → world, europe), at most 4. */
export function linkSections(link: string | null | undefined): string[] {
  if (!link) return [];
  let path: string;
  try {
    path = new URL(link).pathname;
  } catch {
    return [];
  }
  const segments = path.toLowerCase().split('/').filter(Boolean).slice(0, -1);
  const out: string[] = [];
  for (const s of segments.slice(0, 4)) {
    let decoded = s;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      // keep the raw segment
    }
    // Dates and ids are not sections.
    if (!/^\d+$/.test(decoded) && decoded.length <= 40) out.push(decoded);
  }
  return out;
}

/**
 * A trailing " - Outlet" / " | Outlet" / " — Outlet" of the headline (Google News appends the outlet,
 * and its summary repeats the headline and the outlet). Outlet names let the model memorise outlets,
 * which does not carry over to outlets it has not seen, so they are cut before features are made.
 * A suffix of at most `OUTLET_WORDS` words counts as a name.
 */
const OUTLET_SUFFIX = /\s[-|–—]\s([^-|–—]{1,50})$/u;
const OUTLET_WORDS = 6;

/** Headline and summary without the outlet's name at their ends. */
export function withoutOutlet(title: string, summary: string): { title: string; summary: string } {
  const m = OUTLET_SUFFIX.exec(title);
  const outlet = m?.[1]?.trim();
  if (!m || !outlet || outlet.split(/\s+/).length > OUTLET_WORDS) return { title, summary };
  return {
    title: title.slice(0, m.index).trim(),
    summary: summary.endsWith(outlet) ? summary.slice(0, summary.length - outlet.length).trim() : summary,
  };
}

/**
 * The length every item's vector is scaled to: a long summary then weighs no more than a bare
 * headline, so how much an outlet writes does not move the keep score (the out-of-outlet CV rose
 * with it, scripts/reader/REPORT.md).
 */
const VECTOR_LENGTH = 2;

/** The features of one item, as a sparse vector with distinct buckets, of length `VECTOR_LENGTH`. */
export function featuresOf(input: FeatureInput): Features {
  const { title, summary } = withoutOutlet(
    input.title.trim(),
    input.summary.slice(0, SUMMARY_FEATURE_CHARS).trim(),
  );
  const titleTokens = tokensOf(title);
  const bodyTokens = summary ? tokensOf(summary) : [];
  textGroups(
    titleTokens,
    [SEEDS.titleWord, SEEDS.titlePair, SEEDS.titleGram],
    [WEIGHT.titleWord, WEIGHT.titlePair, WEIGHT.titleGram],
  );
  textGroups(
    bodyTokens,
    [SEEDS.bodyWord, SEEDS.bodyPair, SEEDS.bodyGram],
    [WEIGHT.bodyWord, WEIGHT.bodyPair, WEIGHT.bodyGram],
  );

  const { facts } = input;
  const named = (name: string, value = 1) => add(bucketOf(name), value);
  named('bias:text');
  named(`lang:${facts.readAs ?? `other:${facts.language ?? '?'}`}`);
  if (facts.kinds.length === 0) named('kind:none');
  for (const k of facts.kinds) {
    const v = k.head ? 1 : 0.5;
    named(`kind:${k.kind}`, v);
    named(`klayer:${k.layer}`, v);
  }
  const c = facts.casualties;
  if (c.dead !== null) named(`dead:${bucketName(c.dead, CASUALTY_EDGES)}`);
  if (c.hurt !== null) named(`hurt:${bucketName(c.hurt, CASUALTY_EDGES)}`);
  if (c.missing !== null) named(`missing:${bucketName(c.missing, CASUALTY_EDGES)}`);
  if (facts.hedges.length) named('hedge');
  if (facts.scope) named('scope');
  named(`countries:${Math.min(facts.countries, 3)}`);
  for (const s of linkSections(input.link)) named(`sec:${s}`);
  for (const category of (input.categories ?? []).slice(0, 10)) {
    for (const w of tokensOf(category).slice(0, 4)) named(`cat:${w}`, 0.5);
  }
  // The headline's form: a question, a label before a colon, a quotation, its first words.
  if (/\?\s*$/.test(title)) named('form:question');
  if (/^[^:]{2,40}:\s/u.test(title)) named('form:colon');
  if (/^["'«“„‘]/u.test(title)) named('form:quote');
  if (titleTokens[0]) named(`first:${titleTokens[0]}`);
  if (titleTokens[1]) named(`first2:${titleTokens[0]} ${titleTokens[1]}`);
  named(`tlen:${bucketName(titleTokens.length, [4, 7, 10, 14, 20])}`);
  if (!summary) named('summary:none');

  const n = touched.length;
  let squares = 0;
  for (const b of touched) squares += scratch[b]! * scratch[b]!;
  const scale = squares > 0 ? VECTOR_LENGTH / Math.sqrt(squares) : 0;
  const index = new Int32Array(n);
  const value = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const b = touched[i]!;
    index[i] = b;
    value[i] = scratch[b]! * scale;
    scratch[b] = 0;
  }
  touched.length = 0;
  return { index, value };
}
