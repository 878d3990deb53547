/**
 * Optional LLM re-grading of the news items the rules kept (docs/reading.md): an OpenAI-compatible
 * chat-completions endpoint reads the headline and summary and may correct layer, score and
 * valence, under guardrails. It never sees an item the gate dropped (so it cannot keep one), never
 * raises a score by more than `MAX_RAISE`, answers only from the vocabularies (zod), and runs within
 * a per-document budget of items and time; when it fails, times out or is over budget, the rules'
 * reading stands. Answers are cached by the hash of the text in a bounded module-level LRU.
 */
import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { askJson, DEFAULT_MODEL, type ChatEndpoint } from '../net/chat';
import type { OutboundFetch } from '../net/outbound';
import type { SourceItem } from '../sources/types';
import { LAYERS, VALENCES } from '../vocab';

export interface LlmGraderConfig extends ChatEndpoint {
  /** Per-request limit. */
  timeoutMs?: number;
  /** At most this many items graded per document (the rest keep the rules' reading). */
  maxItems?: number;
  /** At most this long spent grading one document. */
  budgetMs?: number;
}

/** The most a grade may raise the rules' score: the rules' facts (casualties, kind) stay the anchor. */
export const MAX_RAISE = 2;
const DEFAULT_MAX_ITEMS = 20;
const DEFAULT_BUDGET_MS = 15_000;
const DEFAULT_TIMEOUT_MS = 5_000;
/** Cached grades kept (oldest dropped first). */
const CACHE_SIZE = 2_000;
const ANSWER_CAP_BYTES = 16 * 1024;

const GradeSchema = z
  .object({
    layer: z.enum(LAYERS),
    severity: z.number().min(0).max(10),
    valence: z.enum(VALENCES),
  })
  .strict();
type Grade = z.infer<typeof GradeSchema>;

const cache = new Map<string, Grade>();
const remember = (key: string, grade: Grade): void => {
  cache.delete(key);
  cache.set(key, grade);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
};
/** For tests: forget every cached grade. */
export const clearGradeCache = (): void => cache.clear();

const SYSTEM_PROMPT = `You grade one news item for a threat-signal stream, as an analyst would, from its title and summary only.
Answer with one JSON object and nothing else: {"layer": one of ${LAYERS.join(', ')}, "severity": number 0-10, "valence": one of ${VALENCES.join(', ')}}.
Severity: ~3 routine event, ~5 notable, ~6 serious, >= 8 major crisis (mass casualties, invasion, catastrophic disaster).`;

async function askGrade(
  fetcher: OutboundFetch,
  llm: LlmGraderConfig,
  text: string,
  timeoutMs: number,
): Promise<Grade> {
  const answer = await askJson(fetcher, llm, {
    system: SYSTEM_PROMPT,
    user: text,
    temperature: 0,
    timeoutMs,
    maxBytes: ANSWER_CAP_BYTES,
  });
  return GradeSchema.parse(answer);
}

/** The item with the grade applied within the guardrails, and the change recorded in its classification. */
function applyGrade(item: SourceItem, grade: Grade, model: string): SourceItem {
  const before = item.significance_score;
  const score = Math.round(Math.min(grade.severity, before + MAX_RAISE) * 10) / 10;
  const changed =
    score !== before || grade.layer !== item.threat_layer || grade.valence !== item.signal_valence;
  if (!changed || !item.classification) return item;
  return {
    ...item,
    threat_layer: grade.layer,
    significance_score: score,
    signal_valence: grade.valence,
    classification: {
      ...item.classification,
      llm: {
        model,
        rules: { layer: item.threat_layer, score: before, valence: item.signal_valence },
        graded: { layer: grade.layer, score, valence: grade.valence },
      },
    },
  };
}

/**
 * Re-grades the items the rules read (those with a `classification`), at most `maxItems` of them
 * within `budgetMs`; every other item, and every item whose grade failed, is returned unchanged.
 */
export async function gradeNewsItems(
  items: SourceItem[],
  fetcher: OutboundFetch,
  llm: LlmGraderConfig,
  clock: () => number = Date.now,
): Promise<SourceItem[]> {
  const deadline = clock() + (llm.budgetMs ?? DEFAULT_BUDGET_MS);
  let asked = 0;
  const out: SourceItem[] = [];
  for (const item of items) {
    if (!item.classification) {
      out.push(item);
      continue;
    }
    const text = `${item.title ?? ''}\n${item.content_display}`.slice(0, 1500);
    const key = createHash('sha256').update(text).digest('hex');
    let grade = cache.get(key);
    const left = deadline - clock();
    if (!grade && asked < (llm.maxItems ?? DEFAULT_MAX_ITEMS) && left > 0) {
      asked += 1;
      try {
        grade = await askGrade(fetcher, llm, text, Math.min(llm.timeoutMs ?? DEFAULT_TIMEOUT_MS, left));
        remember(key, grade);
      } catch {
        // The rules' reading stands.
      }
    }
    out.push(grade ? applyGrade(item, grade, llm.model ?? DEFAULT_MODEL) : item);
  }
  return out;
}
