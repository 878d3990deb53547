/**
 * The reading rules of each supported language (data/<lang>/reading.json) and the event-kind
 * taxonomy (data/kinds.json), compiled once per language on first use.
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
import { casualtyMatcher, type CasualtyMatcher } from './casualties';
import { compileTerms, type Term } from './lexicon';

interface CasualtyWords {
  after: string[];
  before: string[];
  single?: string[];
}

/** The shape of a data/<lang>/reading.json file. */
export interface LanguageRules {
  prefixes?: string[];
  /** Frequent words of the language, to overrule a detector's guess on short text. */
  functionWords?: string[];
  layers: Record<string, Record<string, number>>;
  kinds: Record<string, string[]>;
  gate: { forms: string[]; never: string[]; topics: string[]; hard: string[] };
  hedges: string[];
  resolution: string[];
  escalation: string[];
  update: string[];
  scope: string[];
  numbers: Record<string, number>;
  casualties: { dead?: CasualtyWords; hurt?: CasualtyWords; missing?: CasualtyWords };
}

export const SUPPORTED_LANGUAGES = ['en', 'fr', 'es', 'de', 'pt', 'ru', 'uk', 'ar'] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

const FILES: Record<SupportedLanguage, LanguageRules> = { en, fr, es, de, pt, ru, uk, ar };

export interface Kind {
  layer: Layer;
  base: number;
  valence?: Valence;
  needs_layer?: boolean;
}
export const KINDS = kindsFile.kinds as Record<string, Kind>;
export const LAYER_DEFAULT_BASE = kindsFile.layerDefault;

export interface Compiled {
  lang: SupportedLanguage;
  layers: { layer: Layer; terms: (Term & { weight: number })[] }[];
  kinds: { kind: string; terms: Term[] }[];
  forms: Form[];
  never: Form[];
  topics: Term[];
  hard: Term[];
  hedges: Term[];
  resolution: Term[];
  escalation: Term[];
  update: Term[];
  scope: Term[];
  casualties: CasualtyMatcher;
}

const compiled = new Map<SupportedLanguage, Compiled>();

/** `\b` of the form regexes, for every script: JavaScript's own `\b` knows only ASCII letters. */
const UNICODE_BOUNDARY = '(?:(?<![\\p{L}\\p{N}])(?=[\\p{L}\\p{N}])|(?<=[\\p{L}\\p{N}])(?![\\p{L}\\p{N}]))';

/** A headline form of the data files, keeping its written source for the `gate` explanation. */
export interface Form {
  source: string;
  pattern: RegExp;
}
const formPattern = (source: string): Form => ({
  source,
  pattern: new RegExp(source.replaceAll('\\b', UNICODE_BOUNDARY), 'iu'),
});

export function rulesFor(lang: SupportedLanguage): Compiled {
  let c = compiled.get(lang);
  if (c) return c;
  const file = FILES[lang];
  const p = file.prefixes;
  c = {
    lang,
    layers: Object.entries(file.layers).map(([layer, terms]) => ({
      layer: layer as Layer,
      terms: compileTerms(Object.keys(terms), p).map((t) => ({ ...t, weight: terms[t.term] ?? 0 })),
    })),
    kinds: Object.entries(file.kinds).map(([kind, terms]) => {
      if (!KINDS[kind]) throw new Error(`reading/${lang}: unknown event kind ${kind}`);
      return { kind, terms: compileTerms(terms, p) };
    }),
    forms: file.gate.forms.map(formPattern),
    never: file.gate.never.map(formPattern),
    topics: compileTerms(file.gate.topics, p),
    hard: compileTerms(file.gate.hard, p),
    hedges: compileTerms(file.hedges, p),
    resolution: compileTerms(file.resolution, p),
    escalation: compileTerms(file.escalation, p),
    update: compileTerms(file.update, p),
    scope: compileTerms(file.scope, p),
    casualties: casualtyMatcher(file),
  };
  compiled.set(lang, c);
  return c;
}

/** Languages whose function words can overrule the detector, with those words. */
export const FUNCTION_WORDS: [SupportedLanguage, Set<string>][] = Object.entries(FILES)
  .filter(([, file]) => file.functionWords?.length)
  .map(([lang, file]) => [lang as SupportedLanguage, new Set(file.functionWords)]);
