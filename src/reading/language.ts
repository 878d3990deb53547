/**
 * The one home of language detection: the feed's tag when it gives one, else `tinyld` on a
 * clipped prefix of the text, with the two corrections headlines need (a supported language
 * ranked close behind a wrong first guess, and Russian told from Ukrainian by their letters).
 * The connectors (ReliefWeb) and the reader both ask here.
 */
// The light model (≈70 KB) keeps the Worker bundle small; it covers the major news languages.
import { detectAll } from 'tinyld/light';
import ar from './data/ar/reading.json';
import de from './data/de/reading.json';
import en from './data/en/reading.json';
import es from './data/es/reading.json';
import fr from './data/fr/reading.json';
import pt from './data/pt/reading.json';
import ru from './data/ru/reading.json';
import uk from './data/uk/reading.json';

export const SUPPORTED_LANGUAGES = ['en', 'fr', 'es', 'de', 'pt', 'ru', 'uk', 'ar'] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

export const isSupported = (lang: string | null | undefined): lang is SupportedLanguage =>
  typeof lang === 'string' && (SUPPORTED_LANGUAGES as readonly string[]).includes(lang);

/** Only this much of the text is given to the detector. */
const DETECT_PREFIX = 300;
/** Letters read by free-text detection: its cost is linear in the text (≈3 s per MiB). */
const LANGUAGE_SAMPLE = 1000;
/** Below this `tinyld` accuracy a guess is no better than noise on headlines ("Nepal Flash Flood…" → sv). */
const LANGUAGE_MIN_ACCURACY = 0.1;

const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** A language tag the ingest schema accepts ("en-GB" → "en-gb" kept; "English" → null). */
export function languageTag(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const tag = value.trim().toLowerCase().replace('_', '-');
  return LANGUAGE_TAG.test(tag) ? tag : null;
}

/**
 * Language of free text with `tinyld` (letters only: digits and "|" skew it), or null when the
 * text is short or the guess is weak; a missing language is better than a wrong one.
 */
export function detectLanguage(text: string): string | null {
  const letters = text
    .slice(0, LANGUAGE_SAMPLE * 4)
    .replace(/[^\p{L}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (letters.length < 20) return null;
  const best = detectAll(letters.slice(0, LANGUAGE_SAMPLE))[0];
  return best && best.accuracy >= LANGUAGE_MIN_ACCURACY ? languageTag(best.lang) : null;
}

/** Frequent words of each language (data/<lang>/reading.json), to overrule a guess on short text. */
const FILES: Record<SupportedLanguage, { kinds: object; functionWords?: string[] }> = {
  en,
  fr,
  es,
  de,
  pt,
  ru,
  uk,
  ar,
};
const FUNCTION_WORDS: [SupportedLanguage, Set<string>][] = Object.entries(FILES)
  .filter(([, file]) => file.functionWords?.length)
  .map(([lang, file]) => [lang as SupportedLanguage, new Set(file.functionWords)]);

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
