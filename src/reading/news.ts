/**
 * One news item as the news connectors (rss, gdelt, unlabelled ReliefWeb) see it: where it
 * happens (the gazetteer) and how it reads (the rules), plus the `classification` object stored
 * on the signal so the detail view can say why it scored what it did.
 */
import type { SourceTier } from '../vocab';
import { itemLanguage } from './language';
import { locate, type Located } from './locate';
import type { LinearModel } from './model';
import { decideNews, prepareNews, type NewsReading, type PreparedNews } from './read';

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

/** Bumped when the reading changes meaning, so stored readings can be told apart (2: the learned model). */
const READING_VERSION = 2;

export interface NewsItemRead extends Located {
  reading: NewsReading;
  classification: Classification | null;
}

export interface NewsItemInput {
  title: string;
  summary: string;
  link: string | null;
  language: string | null;
  tier: SourceTier;
  /** Countries the feed itself gives (ReliefWeb); the text is then not searched for places. */
  countries?: string[];
  /** The feed's own categories of the item (a feature of the model). */
  categories?: readonly string[];
}

/** Places, facts and features of one item: everything but the model's decision. */
export function prepareNewsItem(input: NewsItemInput): { place: Located; prepared: PreparedNews } {
  const language = itemLanguage(
    input.language,
    input.summary ? `${input.title}. ${input.summary}` : input.title,
  );
  const place: Located = input.countries?.length
    ? { countries: input.countries, city: null }
    : locate(input.title, input.summary, language, input.link);
  return { place, prepared: prepareNews({ ...input, language, countries: place.countries }) };
}

/** The reading of one item as the news connectors store it (`model`: training's folds; default the shipped one). */
export function readNewsItem(input: NewsItemInput, model?: LinearModel): NewsItemRead {
  const { place, prepared } = prepareNewsItem(input);
  const reading = decideNews(prepared, model);
  const { event: _event, gate: _gate, ...rest } = reading;
  return { ...place, reading, classification: reading.event ? { version: READING_VERSION, ...rest } : null };
}
