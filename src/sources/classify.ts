/**
 * Keyword classification of free text (rss, gdelt, unlabelled ReliefWeb reports). The rules and
 * weights live in classify-rules.json and are explained in ./README.md ("Classification").
 * Deterministic and English-only: text in other languages matches nothing and is dropped.
 */
import type { Layer, SourceTier, Valence } from '../vocab';
import rules from './classify-rules.json';
import { classifiedBase, finalScore, firstReportValence } from './scoring';

export interface Classification {
  layer: Layer;
  score: number;
  valence: Valence;
  /** The winning layer's matched terms, for tests and debugging. */
  matched: string[];
}

/** A term as a whole-word regex; a trailing `*` allows any word ending. */
function termPattern(term: string): RegExp {
  const stem = term.endsWith('*') ? term.slice(0, -1) : term;
  const escaped = stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  const tail = term.endsWith('*') ? '[\\p{L}\\p{N}-]*' : '';
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}${tail}(?![\\p{L}\\p{N}])`, 'iu');
}

interface Compiled {
  layers: { layer: Layer; terms: { term: string; weight: number; pattern: RegExp }[] }[];
  exclude: RegExp[];
  resolution: RegExp[];
  intensity: { weight: number; pattern: RegExp }[];
}

let compiled: Compiled | undefined;
/** Compiled on first use (a few hundred regexes): cheap, and skipped by connectors that never classify. */
function compile(): Compiled {
  compiled ??= {
    layers: Object.entries(rules.layers).map(([layer, terms]) => ({
      layer: layer as Layer,
      terms: Object.entries(terms as Record<string, number>).map(([term, weight]) => ({
        term,
        weight,
        pattern: termPattern(term),
      })),
    })),
    exclude: rules.exclude.map(termPattern),
    resolution: rules.resolution.map(termPattern),
    intensity: Object.entries(rules.intensity).map(([term, weight]) => ({
      weight,
      pattern: termPattern(term),
    })),
  };
  return compiled;
}

/** True when the text is sport, entertainment or a retrospective (never a signal). */
export function isExcluded(text: string): boolean {
  return compile().exclude.some((pattern) => pattern.test(text));
}

/**
 * Layer, score and valence of a headline and its summary, or null when it is excluded or matches
 * no layer strongly enough (`minLayerWeight`): such items are dropped, never forced into a layer.
 */
export function classify(headline: string, summary: string, tier: SourceTier): Classification | null {
  const { layers, resolution, intensity } = compile();
  const text = summary ? `${headline}. ${summary}` : headline;
  if (isExcluded(text)) return null;
  let best: { layer: Layer; weight: number; matched: string[] } | null = null;
  for (const { layer, terms } of layers) {
    const matched = terms.filter((t) => t.pattern.test(text));
    const weight = matched.reduce((sum, t) => sum + t.weight, 0);
    if (weight > (best?.weight ?? 0)) best = { layer, weight, matched: matched.map((t) => t.term) };
  }
  if (!best || best.weight < rules.minLayerWeight) return null;
  const bonus = intensity.filter((t) => t.pattern.test(text)).reduce((sum, t) => sum + t.weight, 0);
  const score = finalScore(classifiedBase(best.weight, bonus), tier);
  // Summaries narrate ("the ceremony ended in a deadly exchange of fire"); only the headline says an event is over.
  const ended = resolution.some((pattern) => pattern.test(headline));
  return { layer: best.layer, score, valence: firstReportValence(score, ended), matched: best.matched };
}

/** An ISO 639-1 tag for a language named in English ("Malayalam" → "ml"), else null. */
export function languageByName(name: unknown): string | null {
  return typeof name === 'string' ? ((rules.languages as Record<string, string>)[name.trim()] ?? null) : null;
}

/** True when the text names a high-consequence pathogen (WHO DON scoring). */
export function isHighConsequence(text: string): boolean {
  return rules.highConsequencePathogens.some((term) => termPattern(term).test(text));
}
