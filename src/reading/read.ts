/**
 * Reads one news item as an analyst would: is it an event (the gate), which layer and kind of
 * event, how grave (the severity formula), and whether it is a crisis, an update or a resolution.
 * Pure and linear in the text: a fixed set of regexes per language, each run once. The formula
 * and its tables are written down in ./README.md.
 */
import { detectAll } from 'tinyld/light';
import { detectLanguage } from '../sources/common';
import { CRISIS_THRESHOLD, finalScore, TIER_ADJUSTMENT } from '../sources/scoring';
import type { Layer, SourceTier, Valence } from '../vocab';
import { findCasualties, type Casualties } from './casualties';
import gateFile from './data/gate.json';
import { anyIn, found, has, text as textOf, type Text } from './lexicon';
import {
  FUNCTION_WORDS,
  KINDS,
  LAYER_DEFAULT_BASE,
  rulesFor,
  SUPPORTED_LANGUAGES,
  type Compiled,
  type SupportedLanguage,
} from './rules';

/** The gate of items in a language without rules whose layer or place is unclear: counted per source. */
export const UNREAD_LANGUAGE = 'unread language';
/** Layer evidence needed to keep an item (headline words count fully, summary words half). */
export const MIN_LAYER_WEIGHT = 2;
/** An unsupported language is read with the English rules only when this sure (and a country is named). */
export const UNREAD_MIN_WEIGHT = 4;
/** Without an event kind, the layer words must weigh this much (several strong words). */
export const MIN_WEIGHT_WITHOUT_KIND = 5;
/** Weight a matched event kind adds to its layer. */
export const KIND_WEIGHT = 3;
/** Only this much of the text is given to the language detector. */
export const DETECT_PREFIX = 300;
/** Only this much of the summary is read: headlines and ledes carry the facts. */
export const SUMMARY_PREFIX = 1000;

export const CASUALTY_FACTOR = 1.3;
export const CASUALTY_CAP = 3.5;
export const SCOPE_BONUS = 0.5;
export const HEDGE_PENALTY = -1;

export interface ScoreTerms {
  base: number;
  casualties: number;
  scope: number;
  hedge: number;
  tier: number;
}

/** Why the item was read as it was: stored on the signal and shown by the detail view. */
export interface NewsReading {
  /** The item reports an event (it passed the gate and a layer was read). */
  event: boolean;
  /** When not an event: the rule that said so (`form`, `path`, `outlet`, `topic`, `no layer`, `unread language`). */
  gate: string | null;
  /** The language given by the feed or detected; `read_as` is the rule set used (null: none). */
  language: string | null;
  read_as: SupportedLanguage | null;
  layer: Layer | null;
  kind: string | null;
  /** The words that decided the layer and kind. */
  matched: string[];
  casualties: Casualties;
  hedges: string[];
  /** The terms of the score: base (kind or layer default) + casualties + scope + hedge + tier. */
  terms: ScoreTerms;
  score: number;
  valence: Valence;
  /** The cue that set the valence (`resolution`, `escalation`, `casualties`, `update`, `kind`, `score`). */
  valence_cue: string;
}

export interface NewsInput {
  title: string;
  summary?: string;
  link?: string | null;
  /** The feed's language tag, if any (`en-gb`, `pt-br`). */
  language?: string | null;
  tier: SourceTier;
  /** Countries read for the item (the scope term counts them). */
  countries?: readonly string[];
}

const isSupported = (lang: string | null): lang is SupportedLanguage =>
  lang !== null && (SUPPORTED_LANGUAGES as readonly string[]).includes(lang);

/** The language of an item: the feed's tag, else detected on a clipped prefix of the text. */
export function itemLanguage(tag: string | null | undefined, text: string): string | null {
  const given = tag?.trim().toLowerCase().split(/[-_]/)[0];
  if (given && /^[a-z]{2,3}$/.test(given)) return given;
  const prefix = text.slice(0, DETECT_PREFIX);
  let detected = detectLanguage(prefix)?.split('-')[0] ?? null;
  if (detected !== null && !isSupported(detected)) detected = supportedRunnerUp(prefix) ?? detected;
  return detected === 'ru' || detected === 'uk' ? cyrillicLanguage(prefix) : detected;
}

/**
 * A supported language the detector ranks close behind an unsupported first guess: on short
 * headlines it often names a neighbour ("sv" for an English headline on a Nepal flood).
 */
function supportedRunnerUp(text: string): string | null {
  const words = text.toLowerCase().split(/[^\p{L}]+/u);
  for (const [lang, known] of FUNCTION_WORDS) {
    if (words.filter((w) => known.has(w)).length >= 2) return lang;
  }
  const ranked = detectAll(text.replace(/[^\p{L}\s]/gu, ' ')).slice(0, 3);
  const best = ranked[0]?.accuracy ?? 0;
  const close = ranked.find((r) => isSupported(r.lang) && r.accuracy >= best / 2);
  return close?.lang ?? null;
}

/**
 * Russian or Ukrainian by the letters only one of them writes (і ї є ґ against ы э ё ъ): the
 * detector confuses the two on short headlines.
 */
export function cyrillicLanguage(text: string): 'ru' | 'uk' {
  const uk = text.match(/[іїєґ]/giu)?.length ?? 0;
  const ru = text.match(/[ыэёъ]/giu)?.length ?? 0;
  return uk > ru ? 'uk' : 'ru';
}

const PATHS = new Set(gateFile.paths);
const FORMATS = new Set(gateFile.formats.map((f) => `path: /${f}/`));
/** A link gate that names a format (a video page) rather than a soft subject. */
const isFormat = (gate: string): boolean => FORMATS.has(gate);
const OUTLETS = gateFile.outlets;

/** The gate rule a link trips: a commentary outlet, or a soft section in its path. */
export function linkGate(link: string | null | undefined): string | null {
  if (!link) return null;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  const outlet = OUTLETS.find((o) => host === o || host.endsWith(`.${o}`));
  if (outlet) return `outlet: ${outlet}`;
  const segments = url.pathname.toLowerCase().split('/').filter(Boolean);
  // The last segment is the article's slug: only sections before it are read as sections.
  for (const segment of segments.slice(0, -1)) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // keep the raw segment
    }
    if (PATHS.has(decoded)) return `path: /${decoded}/`;
  }
  for (const segment of segments) {
    const prefix = gateFile.pathPrefixes.find((p) => segment.startsWith(p));
    if (prefix) return `path: /${prefix}…`;
  }
  return null;
}

/** A short dateline or label before a colon: at most four words, no sentence. */
const LABEL_PREFIX = /^[^:.!?]{2,30}?\s?:\s+/u;

/** The gate of one headline in one language: the reason it is not an event, or null. */
export function headlineGate(
  rules: Compiled,
  headline: Text,
  text: Text,
  link?: string | null,
): string | null {
  // Questions and retrospectives are never reports, whatever they name; other forms yield to hard news.
  const never = rules.never.find((f) => f.pattern.test(headline.raw));
  if (never) return `form: ${never.source}`;
  const hard = anyIn(rules.hard, headline);
  if (hard) return null;
  // A dateline or label before a colon ("USA: How…", "Québec : pourquoi…") does not hide the form.
  const unlabelled = headline.raw.replace(LABEL_PREFIX, '');
  const form = rules.forms.find((f) => f.pattern.test(headline.raw) || f.pattern.test(unlabelled));
  if (form) return `form: ${form.source}`;
  // A section is a weaker cue than the headline: a video page headlined with an event kind reports it.
  const byLink = linkGate(link);
  if (byLink && !(isFormat(byLink) && rules.kinds.some((k) => k.terms.some((t) => has(t, headline)))))
    return byLink;
  const topic = found(rules.topics, text)[0];
  if (topic) return `topic: ${topic}`;
  return null;
}

interface LayerRead {
  layer: Layer;
  weight: number;
  kind: string | null;
  matched: string[];
}

function readLayer(rules: Compiled, headline: Text, summary: Text | null): LayerRead | null {
  let best: LayerRead | null = null;
  const kindsIn = (text: Text) => rules.kinds.filter((k) => k.terms.some((t) => has(t, text)));
  const headKinds = kindsIn(headline);
  const bodyKinds = summary ? kindsIn(summary).filter((k) => !headKinds.includes(k)) : [];
  for (const { layer, terms } of rules.layers) {
    let weight = 0;
    const matched: string[] = [];
    for (const t of terms) {
      if (has(t, headline)) {
        weight += t.weight;
        matched.push(t.term);
      } else if (summary && has(t, summary)) {
        weight += t.weight / 2;
        matched.push(t.term);
      }
    }
    const strongest = (list: typeof headKinds) =>
      list
        .filter((k) => KINDS[k.kind]?.layer === layer && (matched.length > 0 || !KINDS[k.kind]?.needs_layer))
        .sort((a, b) => (KINDS[b.kind]?.base ?? 0) - (KINDS[a.kind]?.base ?? 0))[0] ?? null;
    const headKind = strongest(headKinds);
    const bodyKind = strongest(bodyKinds);
    if (headKind) weight += KIND_WEIGHT;
    else if (bodyKind) weight += KIND_WEIGHT / 2;
    const kind = headKind ?? bodyKind;
    if (kind) matched.push(`kind:${kind.kind}`);
    if (weight > (best?.weight ?? 0)) best = { layer, weight, kind: kind?.kind ?? null, matched };
  }
  return best;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const tenth = (v: number): number => Math.round(v * 10) / 10;

/** The casualty term: log-scaled, so the first deaths weigh most and 180 is not 7 times 25. */
export function casualtyTerm(c: Casualties): number {
  const count = (c.dead ?? 0) + (c.hurt ?? 0) / 3 + (c.missing ?? 0) / 3;
  return count > 0 ? tenth(clamp(CASUALTY_FACTOR * Math.log10(1 + count), 0, CASUALTY_CAP)) : 0;
}

const notEvent = (
  gate: string,
  language: string | null,
  readAs: SupportedLanguage | null,
  casualties: Casualties,
): NewsReading => ({
  event: false,
  gate,
  language,
  read_as: readAs,
  layer: null,
  kind: null,
  matched: [],
  casualties,
  hedges: [],
  terms: { base: 0, casualties: 0, scope: 0, hedge: 0, tier: 0 },
  score: 0,
  valence: 'update',
  valence_cue: 'score',
});

const NO_CASUALTIES: Casualties = { dead: null, hurt: null, missing: null, evidence: [] };

/** The full reading of one news item. */
export function readNews(input: NewsInput): NewsReading {
  const headlineRaw = input.title.trim();
  const summaryRaw = (input.summary ?? '').slice(0, SUMMARY_PREFIX).trim();
  const raw = summaryRaw ? `${headlineRaw}. ${summaryRaw}` : headlineRaw;
  const language = itemLanguage(input.language, raw);
  const [headline, summary, text] = [
    textOf(headlineRaw),
    summaryRaw ? textOf(summaryRaw) : null,
    textOf(raw),
  ];
  // No language at all (too short to tell) is read as English, the feeds' lingua franca; a known
  // other language is read with the English rules only under the `unread language` guard below.
  const supported = language === null || isSupported(language);
  const readAs: SupportedLanguage | null = isSupported(language) ? language : supported ? 'en' : null;
  const rules = rulesFor(readAs ?? 'en');

  if (!supported) {
    // A language without rules: the English words it may carry (names, loanwords) decide, and
    // only when layer, event kind and place are all plain; otherwise it is counted, not read.
    const layer = linkGate(input.link) ? null : readLayer(rules, headline, summary);
    if (!layer || layer.weight < UNREAD_MIN_WEIGHT || !layer.kind || !input.countries?.length) {
      return notEvent(UNREAD_LANGUAGE, language, null, NO_CASUALTIES);
    }
    return scored(rules, input, layer, raw, headline, text, language, null);
  }
  const gate = headlineGate(rules, headline, text, input.link);
  if (gate) return notEvent(gate, language, readAs, NO_CASUALTIES);
  const layer = readLayer(rules, headline, summary);
  if (!layer || layer.weight < MIN_LAYER_WEIGHT) return notEvent('no layer', language, readAs, NO_CASUALTIES);
  // Topic words without an event ("Covid-19 patients tell their stories") are not a report of one.
  // A routine kind (an election held, a trial) is the continuation of politics or justice, not an
  // event by itself: it needs the layer evidence of an item with no kind.
  const routine = layer.kind !== null && KINDS[layer.kind]?.valence === 'update';
  if ((!layer.kind || routine) && layer.weight < MIN_WEIGHT_WITHOUT_KIND)
    return notEvent('no event', language, readAs, NO_CASUALTIES);
  return scored(rules, input, layer, raw, headline, text, language, readAs);
}

/** Score and valence of an item that reports an event. */
function scored(
  rules: Compiled,
  input: NewsInput,
  layer: LayerRead,
  raw: string,
  headline: Text,
  text: Text,
  language: string | null,
  readAs: SupportedLanguage | null,
): NewsReading {
  const casualties = findCasualties(raw, rules.casualties);
  const hedges = found(rules.hedges, headline);
  const kind = layer.kind ? KINDS[layer.kind] : undefined;
  const terms: ScoreTerms = {
    base: kind?.base ?? LAYER_DEFAULT_BASE,
    casualties: casualtyTerm(casualties),
    scope: (input.countries?.length ?? 0) >= 2 || anyIn(rules.scope, text) ? SCOPE_BONUS : 0,
    hedge: hedges.length ? HEDGE_PENALTY : 0,
    tier: TIER_ADJUSTMENT[input.tier],
  };
  const score = finalScore(terms.base + terms.casualties + terms.scope + terms.hedge, input.tier);

  let valence: Valence;
  let cue: string;
  if (anyIn(rules.resolution, headline) || kind?.valence === 'resolution') {
    [valence, cue] = ['resolution', 'resolution'];
  } else if (anyIn(rules.escalation, headline)) {
    [valence, cue] = ['crisis', 'escalation'];
  } else if ((casualties.dead ?? 0) > 0 && kind?.valence !== 'update') {
    [valence, cue] = ['crisis', 'casualties'];
  } else if (anyIn(rules.update, headline)) {
    [valence, cue] = ['update', 'update'];
  } else if (kind?.valence) {
    [valence, cue] = [kind.valence, 'kind'];
  } else {
    [valence, cue] = [score >= CRISIS_THRESHOLD ? 'crisis' : 'update', 'score'];
  }
  return {
    event: true,
    gate: null,
    language,
    read_as: readAs,
    layer: layer.layer,
    kind: layer.kind,
    matched: layer.matched,
    casualties,
    hedges,
    terms,
    score,
    valence,
    valence_cue: cue,
  };
}
