import { and, desc, eq, isNull } from 'drizzle-orm';
import { z } from '@hono/zod-openapi';
import type { Database } from '../db/client';
import { entities, signalEntities, signals, sources } from '../db/schema';
import { ENTITY_TYPES, LAYERS, SOURCE_TIERS, VALENCES } from '../vocab';
import { signalColumns } from './query';
import { SignalSchema, signalJson } from './serialize';

const Term = (description: string, example: number) => z.number().openapi({ description, example });

/** How a news item was read (src/reading/README.md): why it scored what it did. */
const ClassificationSchema = z
  .object({
    version: z.number().int().openapi({
      description: 'Version of the reading (2: the learned model; 1: the word rules).',
      example: 2,
    }),
    language: z
      .string()
      .nullable()
      .openapi({ description: 'Language given by the feed or detected.', example: 'en' }),
    read_as: z.string().nullable().openapi({
      description:
        'Language whose fact rules (event kinds, casualties, hedges) read the text (null: none of the eight).',
      example: 'en',
    }),
    layer: z.enum(LAYERS).nullable(),
    kind: z
      .string()
      .nullable()
      .openapi({ description: 'Event kind of the taxonomy.', example: 'mass_casualty_attack' }),
    matched: z.array(z.string()).openapi({
      description:
        'Facts the rules matched (`kind:<kind>` for each event kind the text names); version 1: the words that decided.',
      example: ['kind:mass_casualty_attack'],
    }),
    casualties: z.object({
      dead: z.number().nullable().openapi({ example: 25 }),
      hurt: z.number().nullable().openapi({ example: null }),
      missing: z.number().nullable().openapi({ example: null }),
      evidence: z.array(z.string()).openapi({ example: ['kills 25'] }),
    }),
    hedges: z.array(z.string()).openapi({ description: 'Hedging words in the headline.', example: [] }),
    terms: z
      .object({
        base: Term(
          "Base of the event kind (or the layer's default when the text names no kind of the layer read), fitted to the labelled severities.",
          5.2,
        ),
        casualties: Term(
          "Lift of the bucket reached by dead + (hurt + missing) / 3 (from 1, 2, 10, 100), fitted to the labels, and at least up to the bucket's floor on the rubric's scale (4, 5, 6, 7).",
          1.1,
        ),
        scope: Term('Lift when several countries or a nationwide scope, fitted to the labels.', 0),
        hedge: Term('Lift when the headline hedges, fitted to the labels.', 0),
        model: Term(
          "The learned model's move of the rules' level (kind, casualties, scope, hedge) towards its own estimate, within ±1.5 (±3 before the levels were fitted); absent before version 2.",
          0.4,
        ).optional(),
        tier: Term('Source tier adjustment.', 0),
      })
      .openapi({ description: 'The score is the sum of these terms, clamped to 0–10.' }),
    score: z.number().openapi({ example: 7.4 }),
    valence: z.enum(VALENCES),
    valence_cue: z
      .string()
      .openapi({ description: 'What set the valence (`model` since version 2).', example: 'model' }),
    confidence: z
      .object({
        keep: z.number().openapi({ description: 'Probability that the item is a signal.', example: 0.97 }),
        layer: z.number().openapi({ description: 'Probability of the layer read.', example: 0.88 }),
        valence: z.number().openapi({ description: 'Probability of the valence read.', example: 0.74 }),
      })
      .optional()
      .openapi({ description: "The learned model's probabilities (version 2 on)." }),
    llm: z
      .object({
        model: z.string(),
        rules: z.object({ layer: z.enum(LAYERS), score: z.number(), valence: z.enum(VALENCES) }),
        graded: z.object({ layer: z.enum(LAYERS), score: z.number(), valence: z.enum(VALENCES) }),
      })
      .optional()
      .openapi({
        description:
          "Present when the optional LLM grader changed the rules' reading: the rules' layer, score and valence, and the graded ones (never more than 2 above the rules' score).",
      }),
  })
  .openapi('Classification');

export const SignalDetailSchema = SignalSchema.extend({
  ingested_at: z.string().openapi({ example: '2026-11-21T08:43:00.000Z' }),
  entities: z
    .array(
      z.object({
        name: z.string().openapi({ example: 'World Health Organization' }),
        type: z.enum(ENTITY_TYPES).openapi({ example: 'organization' }),
        count: z.number().int().openapi({ example: 2 }),
      }),
    )
    .openapi({ description: 'Entities extracted from the title and text, most mentioned first.' }),
  classification: ClassificationSchema.nullable().openapi({
    description:
      'How a news item (rss, gdelt, unlabelled ReliefWeb) was read; null for feeds with their own severity facts.',
  }),
  source: z.object({
    id: z.uuid(),
    name: z.string(),
    tier: z.enum(SOURCE_TIERS),
    url: z.string().nullable(),
    language: z.string().nullable(),
    signal_count: z.number().int(),
    last_seen_at: z.string().nullable(),
  }),
}).openapi('SignalDetail');

export type SignalDetail = z.infer<typeof SignalDetailSchema>;

/** One signal with its entities and source metadata; null when the id is unknown or retracted. */
export async function getSignalDetail(db: Database, id: string): Promise<SignalDetail | null> {
  const [rows, mentions] = await Promise.all([
    db
      .select({
        ...signalColumns,
        sourceUrlHome: sources.url,
        sourceLanguage: sources.language,
        sourceSignalCount: sources.signalCount,
        sourceLastSeenAt: sources.lastSeenAt,
        classification: signals.classification,
      })
      .from(signals)
      .innerJoin(sources, eq(sources.id, signals.sourceId))
      .where(and(eq(signals.id, id), isNull(signals.retractedAt)))
      .limit(1),
    db
      .select({ name: entities.name, type: entities.type, count: signalEntities.mentions })
      .from(signalEntities)
      .innerJoin(entities, eq(entities.id, signalEntities.entityId))
      .where(eq(signalEntities.signalId, id))
      .orderBy(desc(signalEntities.mentions), entities.name),
  ]);
  const row = rows[0];
  if (!row) return null;
  const base = signalJson(row);
  return {
    ...base,
    ingested_at: row.ingestedAt.toISOString(),
    entities: mentions.map((m) => ({ ...m, type: m.type as SignalDetail['entities'][number]['type'] })),
    classification: storedClassification(row.classification),
    source: {
      ...base.source,
      url: row.sourceUrlHome,
      language: row.sourceLanguage,
      signal_count: row.sourceSignalCount,
      last_seen_at: row.sourceLastSeenAt?.toISOString() ?? null,
    },
  };
}

/** A stored reading, when it has the shape this version serves (older rows may not). */
function storedClassification(value: unknown): SignalDetail['classification'] {
  const parsed = ClassificationSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
