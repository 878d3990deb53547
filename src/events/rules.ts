/**
 * Every threshold of event linking and corroboration, in one place (src/events/README.md
 * explains each; tests in test/events/ pin them).
 */
import type { Layer } from '../vocab';

/** News similarity (src/events/text.ts) and when it links. */
export const NEWS = {
  /** A story joins an event whose members were published within this many days of it. */
  windowDays: 4,
  /** Similarity at or above which two items of the same layer are one story. */
  sameLayer: 0.2,
  /** Higher bar for two items of different (but compatible) layers: the reading may differ. */
  crossLayer: 0.36,
  /** Lower bar for two disaster reports of one country naming the same kind of disaster. */
  sameHazard: 0.08,
  /** Reports stating the same facts (kind, country, toll or city) within this many hours are one event. */
  factHours: 36,
  /**
   * Reports of one kind (or kinds of one family) in a shared country within this many hours that
   * contradict each other in nothing (city, toll) need only `sameKind` similarity.
   */
  kindHours: 24,
  sameKind: 0.05,
  /** The similarity margin a same-facts pair clears its bar by (it then competes with text matches). */
  factMargin: 0.05,
  /** Higher bar when only one of the two names a country (no country agreement to lean on). */
  oneSidedCountry: 0.26,
  /** Words longer than this are known by their first letters (Magdeburg/Magdeburger, attack/attacks). */
  stemLength: 6,
  /** Character fragments: this many letters of a padded word. */
  gramLength: 4,
  /** Weight of a name (a capitalised word not opening a sentence: places and actors), of a number, of another word. */
  nameWeight: 3,
  numberWeight: 0.5,
  /** Only the summary's start is compared: long bodies drift off the story. */
  summaryChars: 400,
  /** A visibly cut headline ("…") of at least this many content words, found in the other's, is the same story. */
  containedMinWords: 4,
  /** An uncut headline of at least this many content words that opens the other's is the same story. */
  prefixMinWords: 6,
  /** How words, word pairs and character fragments mix into one similarity. */
  mix: { words: 0.5, pairs: 0.2, grams: 0.3 },
  /** The headlines-alone cosine counts at this fraction (it rests on fewer words). */
  headlineWeight: 0.8,
  /** ...and only when the headlines share at least this many words (one shared name is chance). */
  headlineMinShared: 2,
  /** Headline words per text that index an event (candidate terms): its most telling few. */
  termWords: 6,
  /** Member texts an event keeps to compare with (the founder, then the latest). */
  maxTexts: 5,
  /** Candidate events fetched per new signal (the bound on linking work). */
  maxCandidates: 40,
  /**
   * Events read per lookup term (a headline word on one day), newest first: a signal looks up
   * ~60 terms (6 words over 9 days, and its kinds), so it reads at most ~500 index rows, however
   * many events the table holds.
   * A word shared by more events that day says little alone; the story's other words still meet.
   */
  perTerm: 8,
} as const;

/**
 * Kinds of the reader's taxonomy (src/reading/data/kinds.json) that reports of one happening
 * name interchangeably: a strike one outlet calls a drone attack another calls a missile strike.
 */
export const KIND_FAMILIES: Readonly<Record<string, string>> = {
  air_strike: 'strike',
  missile_attack: 'strike',
  drone_attack: 'strike',
  shelling: 'strike',
  naval_attack: 'strike',
  mass_casualty_attack: 'violence',
  shooting: 'violence',
  stabbing: 'violence',
  murder: 'violence',
};

/** Earthquakes from different feeds (USGS, GDACS, EONET) are one event within these limits. */
export const QUAKE = {
  km: 100,
  minutes: 30,
  magnitude: 0.5,
} as const;

/**
 * Layers that can describe the same event (symmetric). A pair not listed here is never linked,
 * whatever the similarity: a cyber item and a disaster item are never one event.
 */
export const COMPATIBLE_LAYERS: Record<Layer, readonly Layer[]> = {
  military: ['military', 'political', 'criminal', 'cyber', 'supply_chain'],
  cyber: ['cyber', 'criminal', 'military', 'political'],
  economic: ['economic', 'supply_chain', 'political'],
  disaster: ['disaster', 'health', 'supply_chain'],
  political: ['political', 'military', 'criminal', 'economic', 'health', 'cyber'],
  criminal: ['criminal', 'military', 'political', 'cyber'],
  health: ['health', 'disaster', 'political', 'supply_chain'],
  supply_chain: ['supply_chain', 'economic', 'disaster', 'military', 'health'],
};

/**
 * The corroboration term added to a member's score: nothing for one publisher, then
 * `perPublisher` for each further independent one, at most `max` (five publishers reach it).
 */
export const CORROBORATION = { perPublisher: 0.25, max: 1 } as const;

/** Score bounds of the API. */
const MAX_SCORE = 10;

/** The corroboration term for an event told by `publishers` independent publishers. */
export function corroborationTerm(publishers: number): number {
  if (!Number.isFinite(publishers) || publishers <= 1) return 0;
  return Math.min(CORROBORATION.max, CORROBORATION.perPublisher * (Math.floor(publishers) - 1));
}

/** A member's stored score: its own score plus the term, at most 10, to two decimals (unchanged without a term). */
export function corroboratedScore(base: number, publishers: number): number {
  const term = corroborationTerm(publishers);
  if (term === 0) return base;
  return Math.round(Math.min(MAX_SCORE, base + term) * 100) / 100;
}
