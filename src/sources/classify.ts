/**
 * The structured feeds' own word rules (language names, ReliefWeb labels, pathogens). Free text
 * (rss, gdelt, unlabelled ReliefWeb reports) is read by src/reading (src/reading/README.md).
 */
import rules from './classify-rules.json';
import { termPattern } from '../reading/lexicon';

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
