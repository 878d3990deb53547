/**
 * Free-text classification for the connectors that read news (rss, gdelt, unlabelled ReliefWeb
 * reports): a thin door onto src/reading, where the event gate, the layer and event-kind rules
 * of eight languages and the severity formula live (src/reading/README.md). The remaining rules
 * here are the structured feeds' (language names, ReliefWeb labels, pathogens).
 */
import { readNews } from '../reading/read';
import type { Layer, SourceTier, Valence } from '../vocab';
import rules from './classify-rules.json';
import { termPattern } from '../reading/lexicon';

export interface Classification {
  layer: Layer;
  score: number;
  valence: Valence;
  /** The winning layer's matched terms, for tests and debugging. */
  matched: string[];
}

/**
 * Layer, score and valence of a headline and its summary (English unless the text says
 * otherwise), or null when it is not an event or matches no layer: such items are dropped.
 */
export function classify(headline: string, summary: string, tier: SourceTier): Classification | null {
  const reading = readNews({ title: headline, summary, tier });
  if (!reading.event || !reading.layer) return null;
  return { layer: reading.layer, score: reading.score, valence: reading.valence, matched: reading.matched };
}

/** An ISO 639-1 tag for a language named in English ("Malayalam" → "ml"), else null. */
export function languageByName(name: unknown): string | null {
  return typeof name === 'string' ? ((rules.languages as Record<string, string>)[name.trim()] ?? null) : null;
}

const pathogens = rules.highConsequencePathogens.map((term) => termPattern(term));
/** True when the text names a high-consequence pathogen (WHO DON scoring). */
export function isHighConsequence(text: string): boolean {
  const lower = text.toLowerCase();
  return pathogens.some((pattern) => pattern.test(lower));
}
