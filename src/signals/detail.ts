import { and, desc, eq, isNull } from 'drizzle-orm';
import { z } from '@hono/zod-openapi';
import type { Database } from '../db/client';
import { entities, signalEntities, signals, sources } from '../db/schema';
import { ENTITY_TYPES, SOURCE_TIERS } from '../vocab';
import { signalColumns } from './query';
import { SignalSchema, signalJson } from './serialize';

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
    source: {
      ...base.source,
      url: row.sourceUrlHome,
      language: row.sourceLanguage,
      signal_count: row.sourceSignalCount,
      last_seen_at: row.sourceLastSeenAt?.toISOString() ?? null,
    },
  };
}
