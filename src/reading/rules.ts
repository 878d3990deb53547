/**
 * The fact rules of each supported language (data/<lang>/reading.json: event-kind words, hedges,
 * scope words, number and casualty words) and the event-kind taxonomy (data/kinds.json), compiled
 * once per language on first use. They state facts the model reads as features and the severity
 * formula uses; whether an item is an event, its layer and valence come from the model (./model.ts).
 */
import type { Layer, Valence } from '../vocab';
import kindsFile from './data/kinds.json';
import ar from './data/ar/reading.json';
import de from './data/de/reading.json';
import en from './data/en/reading.json';
import es from './data/es/reading.json';
import fr from './data/fr/reading.json';
import pt from './data/pt/reading.json';
import ru from './data/ru/reading.json';
import uk from './data/uk/reading.json';
import { casualtyMatcher, type CasualtyData, type CasualtyMatcher } from './casualties';
import type { SupportedLanguage } from './language';
import { compileTerms, TermIndex, type Term } from './lexicon';

/** The shape of a data/<lang>/reading.json file. */
interface LanguageRules extends CasualtyData {
  prefixes?: string[];
  /** Frequent words of the language, to overrule a detector's guess on short text (./language.ts). */
  functionWords?: string[];
  kinds: Record<string, string[]>;
  hedges: string[];
  scope: string[];
}

const FILES: Record<SupportedLanguage, LanguageRules> = { en, fr, es, de, pt, ru, uk, ar };

export interface Kind {
  layer: Layer;
  base: number;
  valence?: Valence;
  needs_layer?: boolean;
}
export const KINDS = kindsFile.kinds as Record<string, Kind>;
/** The base of an item whose text names no kind of the layer read. */
export const LAYER_DEFAULT_BASE = kindsFile.layerDefault as Record<Layer, number>;

/** What casualties, scope and a hedge add to the base: fitted to the labels (scripts/reader/levels.ts). */
export interface Levels {
  /**
   * A casualty count at or above `edges[i]` adds `lifts[i]` (the highest edge reached), and at
   * least what lifts the level to `floors[i]` (the rubric's steps).
   */
  casualties: { edges: number[]; lifts: number[]; floors: number[] };
  scope: number;
  hedge: number;
}
export const LEVELS: Levels = kindsFile.levels;

/** A kind word of a language, with the kind it names. */
type KindTerm = Term & { kind: string };

export interface Compiled {
  lang: SupportedLanguage;
  kinds: { kind: string; terms: Term[] }[];
  /** Every kind word of the language, matched in one pass. */
  kindIndex: TermIndex<KindTerm>;
  hedges: Term[];
  scope: Term[];
  casualties: CasualtyMatcher;
}

const compiled = new Map<SupportedLanguage, Compiled>();

export function rulesFor(lang: SupportedLanguage): Compiled {
  let c = compiled.get(lang);
  if (c) return c;
  const file = FILES[lang];
  const p = file.prefixes;
  const kinds = Object.entries(file.kinds).map(([kind, terms]) => {
    if (!KINDS[kind]) throw new Error(`reading/${lang}: unknown event kind ${kind}`);
    return { kind, terms: compileTerms(terms, p) };
  });
  c = {
    lang,
    kinds,
    kindIndex: new TermIndex(kinds.flatMap(({ kind, terms }) => terms.map((t) => ({ ...t, kind })))),
    hedges: compileTerms(file.hedges, p),
    scope: compileTerms(file.scope, p),
    casualties: casualtyMatcher(file),
  };
  compiled.set(lang, c);
  return c;
}
