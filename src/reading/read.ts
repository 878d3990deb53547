/**
 * Reads one news item as an analyst would. The rules state facts (the event kinds the text names,
 * casualty figures, hedges, scope; places come from the gazetteer through ./news.ts); the learned
 * model (./model.ts) decides from those facts and the words whether the item is an event, its
 * layer and valence, and moves the rules' severity level within a step. Pure and linear in the
 * clipped text. The formula and the model are written down in ./README.md.
 */
import { finalScore, TIER_ADJUSTMENT } from '../sources/scoring';
import { LAYERS, type Layer, type SourceTier, type Valence } from '../vocab';
import { casualtyCount, findCasualties, type Casualties } from './casualties';
import { featuresOf, type Features, type ReadFacts } from './features';
import { isSupported, itemLanguage, type SupportedLanguage } from './language';
import { anyIn, found, text as textOf, type Text } from './lexicon';
import {
  layerOf,
  SEVERITY_SHARE,
  SEVERITY_STEP,
  shippedModel,
  valenceOf,
  type LinearModel,
  type Prediction,
} from './model';
import { KINDS, LAYER_DEFAULT_BASE, LEVELS, rulesFor, type Compiled } from './rules';

/** The gate of items in a language without rules whose kind or place is unclear: counted per source. */
export const UNREAD_LANGUAGE = 'unread language';
/** Only this much of the summary is read: headlines and ledes carry the facts. */
const SUMMARY_PREFIX = 1000;

interface ScoreTerms {
  base: number;
  casualties: number;
  scope: number;
  hedge: number;
  /** The model's move of the rules' level halfway towards its own estimate, within ±`SEVERITY_STEP`. */
  model: number;
  tier: number;
}

/** The model's confidence in what it decided (probabilities, two decimals). */
interface Confidence {
  keep: number;
  layer: number;
  valence: number;
}

/** Why the item was read as it was: stored on the signal and shown by the detail view. */
export interface NewsReading {
  /** The item reports an event (the model kept it). */
  event: boolean;
  /** When not an event: why (`model`, `unread language`). */
  gate: string | null;
  /** The language given by the feed or detected; `read_as` is the fact rule set used (null: none). */
  language: string | null;
  read_as: SupportedLanguage | null;
  layer: Layer | null;
  kind: string | null;
  /** The facts the rules matched: `kind:<kind>` for each event kind named. */
  matched: string[];
  casualties: Casualties;
  hedges: string[];
  /** The terms of the score: base (kind or layer default) + casualties + scope + hedge + model + tier. */
  terms: ScoreTerms;
  score: number;
  valence: Valence;
  /** What set the valence (`model`). */
  valence_cue: string;
  confidence: Confidence;
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
  /** The feed's own categories of the item. */
  categories?: readonly string[];
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const tenth = (v: number): number => Math.round(v * 10) / 10;
const hundredth = (v: number): number => Math.round(v * 100) / 100;

/**
 * The casualty term over a kind's `base`: the fitted lift of the highest bucket the count reaches
 * (from 1, 2, 10, 100), and at least what lifts the level to that bucket's floor, the rubric's
 * steps (deaths in a local attack, a deadly strike, mass casualties), rather than a smooth curve.
 */
export function casualtyTerm(c: Casualties, base: number): number {
  const count = casualtyCount(c);
  const { edges, lifts, floors } = LEVELS.casualties;
  let term = 0;
  for (let i = 0; i < edges.length; i++)
    if (count >= edges[i]!) term = Math.max(lifts[i]!, tenth((floors[i] ?? 0) - base));
  return term;
}

/** What the rules read of one item before the model decides. */
export interface FactReading {
  facts: ReadFacts;
  language: string | null;
  readAs: SupportedLanguage | null;
  supported: boolean;
  headline: Text;
  text: Text;
}

/** The facts of one item: language, event kinds named, casualties, hedges and scope. */
export function readFacts(input: NewsInput): FactReading {
  const headlineRaw = input.title.trim();
  const summaryRaw = (input.summary ?? '').slice(0, SUMMARY_PREFIX).trim();
  const raw = summaryRaw ? `${headlineRaw}. ${summaryRaw}` : headlineRaw;
  const language = itemLanguage(input.language, raw);
  // No language at all (too short to tell) is read as English, the feeds' lingua franca; a known
  // other language has its facts read with the English rules (names, loanwords) only.
  const supported = language === null || isSupported(language);
  const readAs: SupportedLanguage | null = isSupported(language) ? language : supported ? 'en' : null;
  const rules: Compiled = rulesFor(readAs ?? 'en');
  const headline = textOf(headlineRaw);
  const text = textOf(raw);
  // One pass over the whole text finds the kinds named; only those are looked for in the headline.
  const named = new Map<string, boolean>();
  for (const term of rules.kindIndex.matches(text)) named.set(term.kind, false);
  for (const term of rules.kindIndex.matches(headline)) if (named.has(term.kind)) named.set(term.kind, true);
  const kinds: ReadFacts['kinds'] = [];
  for (const k of rules.kinds) {
    const head = named.get(k.kind);
    if (head !== undefined) kinds.push({ kind: k.kind, layer: KINDS[k.kind]!.layer, head });
  }
  const countries = input.countries?.length ?? 0;
  return {
    facts: {
      language,
      readAs,
      kinds,
      casualties: findCasualties(raw, rules.casualties),
      hedges: found(rules.hedges, headline),
      scope: countries >= 2 || anyIn(rules.scope, text),
      countries,
    },
    language,
    readAs,
    supported,
    headline,
    text,
  };
}

/** The kind of the layer read: named in the headline before the summary, then the gravest. */
function kindOf(facts: ReadFacts, layer: Layer): string | null {
  const mine = facts.kinds.filter((k) => k.layer === layer);
  mine.sort((a, b) => Number(b.head) - Number(a.head) || KINDS[b.kind]!.base - KINDS[a.kind]!.base);
  return mine[0]?.kind ?? null;
}

/** The rules' severity level of an item of `layer`: kind base + casualties + scope + hedge. */
function ruleLevel(
  facts: ReadFacts,
  layer: Layer,
): Omit<ScoreTerms, 'model' | 'tier'> & { kind: string | null } {
  const kind = kindOf(facts, layer);
  const base = kind ? KINDS[kind]!.base : LAYER_DEFAULT_BASE[layer];
  return {
    kind,
    base,
    casualties: casualtyTerm(facts.casualties, base),
    scope: facts.scope ? LEVELS.scope : 0,
    hedge: facts.hedges.length ? LEVELS.hedge : 0,
  };
}

const confidenceOf = (p: Prediction, layer: Layer | null): Confidence => ({
  keep: hundredth(p.keep),
  layer: layer ? hundredth(p.layers[LAYERS.indexOf(layer)]!) : 0,
  valence: hundredth(Math.max(...p.valences)),
});

/** An item with its facts read and its features made: what the model decides on. */
export interface PreparedNews {
  input: NewsInput;
  read: FactReading;
  features: Features;
}

/** Reads the facts and makes the features of one item (independent of the model). */
export function prepareNews(input: NewsInput): PreparedNews {
  const read = readFacts(input);
  const features = featuresOf({
    title: input.title,
    summary: input.summary ?? '',
    link: input.link,
    categories: input.categories,
    facts: read.facts,
  });
  return { input, read, features };
}

/** The full reading of one news item (the shipped model unless another is given: training's folds). */
export function readNews(input: NewsInput, model: LinearModel = shippedModel()): NewsReading {
  return decideNews(prepareNews(input), model);
}

/** The model's decision on a prepared item, with the rules' severity terms. */
export function decideNews(prepared: PreparedNews, model: LinearModel = shippedModel()): NewsReading {
  const { input, read } = prepared;
  const { facts, language, readAs } = read;
  const prediction = model.predict(prepared.features);
  const layer = layerOf(prediction, facts.kinds);
  const level = ruleLevel(facts, layer);
  const keep = prediction.keep >= model.thresholdFor(language);
  // A language without fact rules is kept only when the model keeps it and the gazetteer places it
  // (the model has read such items in training; the place is a fact it cannot invent).
  const unread = !read.supported && (!keep || facts.countries === 0);
  if (!keep || unread) {
    return {
      event: false,
      gate: unread ? UNREAD_LANGUAGE : `model: keep ${hundredth(prediction.keep)}`,
      language,
      read_as: readAs,
      layer: null,
      kind: null,
      matched: [],
      casualties: facts.casualties,
      hedges: facts.hedges,
      terms: { base: 0, casualties: 0, scope: 0, hedge: 0, model: 0, tier: 0 },
      score: 0,
      valence: 'update',
      valence_cue: 'model',
      confidence: confidenceOf(prediction, null),
    };
  }
  const terms: ScoreTerms = {
    base: level.base,
    casualties: level.casualties,
    scope: level.scope,
    hedge: level.hedge,
    model: tenth(
      clamp(
        SEVERITY_SHARE * (prediction.severity - (level.base + level.casualties + level.scope + level.hedge)),
        -SEVERITY_STEP,
        SEVERITY_STEP,
      ),
    ),
    tier: TIER_ADJUSTMENT[input.tier],
  };
  const score = finalScore(
    terms.base + terms.casualties + terms.scope + terms.hedge + terms.model,
    input.tier,
  );
  const valence = valenceOf(prediction);
  return {
    event: true,
    gate: null,
    language,
    read_as: readAs,
    layer,
    kind: level.kind,
    matched: facts.kinds.map((k) => `kind:${k.kind}`),
    casualties: facts.casualties,
    hedges: facts.hedges,
    terms,
    score,
    valence,
    valence_cue: 'model',
    confidence: confidenceOf(prediction, layer),
  };
}
