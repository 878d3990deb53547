/**
 * One news item as the news connectors (rss, gdelt, unlabelled ReliefWeb) see it: where it
 * happens (the gazetteer) and how it reads (the rules), plus the `classification` object stored
 * on the signal so the detail view can say why it scored what it did.
 */
import type { SourceTier } from '../vocab';
import { locate, type Located } from './locate';
import { itemLanguage, readNews, type NewsReading } from './read';

/** Stored in `signals.classification` and shown by `GET /api/v1/signals/{id}`. */
export type Classification = Omit<NewsReading, 'event' | 'gate' | 'score'> & {
  score: number;
  version: number;
  /** Set when the optional LLM grader (./llm.ts) changed the rules' reading: both readings. */
  llm?: {
    model: string;
    rules: { layer: string; score: number; valence: string };
    graded: { layer: string; score: number; valence: string };
  };
};

/** Bumped when the rules change meaning, so stored readings can be told apart. */
export const READING_VERSION = 1;

export interface NewsItemRead extends Located {
  reading: NewsReading;
  classification: Classification | null;
}

export function readNewsItem(input: {
  title: string;
  summary: string;
  link: string | null;
  language: string | null;
  tier: SourceTier;
  /** Countries the feed itself gives (ReliefWeb); the text is then not searched for places. */
  countries?: string[];
}): NewsItemRead {
  const language = itemLanguage(
    input.language,
    input.summary ? `${input.title}. ${input.summary}` : input.title,
  );
  const place: Located = input.countries?.length
    ? { countries: input.countries, city: null }
    : locate(input.title, input.summary, language);
  const reading = readNews({ ...input, language, countries: place.countries });
  const { event: _event, gate: _gate, ...rest } = reading;
  return { ...place, reading, classification: reading.event ? { version: READING_VERSION, ...rest } : null };
}
