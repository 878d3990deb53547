import type { signals } from '../db/schema';
import type { LinkInput, Membership } from '../events/link';
import { regionOf } from '../vocab';
import type { ExtractedEntity } from '../reading/entities';
import type { Classification } from '../reading/news';
import { titleOf, type IngestItem } from './validate';

/**
 * A validated item on its way to its one INSERT, with what its connector adds (upstream
 * identity, classification). Every other fact of the row is settled from it before the write.
 */
export interface SignalDraft {
  id: string;
  item: IngestItem;
  externalIds: readonly string[];
  upstreamUpdatedAt: Date | null;
  /** The reader's reading of a news item (src/reading); linking compares its facts. */
  classification: Classification | null;
  /** Extracted before the transaction when the caller can; otherwise by the pipeline. */
  entities?: ExtractedEntity[];
}

/** A draft of a plain ingest item (no connector facts). */
export const draftOf = (item: IngestItem, externalIds: readonly string[] = []): SignalDraft => ({
  id: item.id ?? crypto.randomUUID(),
  item,
  externalIds,
  upstreamUpdatedAt: null,
  classification: null,
});

/**
 * The columns an ingest item maps to, whoever writes them: a new signal's INSERT, and an
 * upstream revision that rewrites a stored row with them.
 */
export function signalColumns(item: IngestItem, sourceId: string): typeof signals.$inferInsert {
  return {
    threatLayer: item.threat_layer,
    significanceScore: item.significance_score,
    baseScore: item.significance_score,
    signalValence: item.signal_valence,
    title: titleOf(item),
    contentDisplay: item.content_display,
    countryCodes: item.country_codes,
    region: item.country_codes[0] ? regionOf(item.country_codes[0]) : null,
    city: item.city ?? null,
    lat: item.lat ?? null,
    lng: item.lng ?? null,
    language: item.language ?? item.source.language ?? null,
    sourceId,
    sourceUrl: item.source_url,
    publishedAt: new Date(item.published_at),
    collectedAt: new Date(item.collected_at ?? item.published_at),
    isAnomaly: item.is_anomaly ?? false,
  };
}

/** The whole row of a new signal, once anomaly and event membership are settled. */
export function newSignalRow(
  draft: SignalDraft,
  sourceId: string,
  isAnomaly: boolean,
  member: Membership,
): typeof signals.$inferInsert {
  return {
    ...signalColumns(draft.item, sourceId),
    id: draft.id,
    isAnomaly,
    eventId: member.eventId,
    eventLead: member.eventLead,
    corroboration: member.corroboration,
    significanceScore: member.score,
    externalIds: [...draft.externalIds],
    upstreamUpdatedAt: draft.upstreamUpdatedAt,
    classification: draft.classification ?? null,
  };
}

/** What linking needs of a new signal. */
export function linkInput(draft: SignalDraft): LinkInput {
  const { item } = draft;
  return {
    id: draft.id,
    threatLayer: item.threat_layer,
    countryCodes: item.country_codes,
    publishedAt: new Date(item.published_at),
    title: titleOf(item),
    content: item.content_display,
    lat: item.lat ?? null,
    lng: item.lng ?? null,
    externalIds: draft.externalIds,
    entities: draft.entities ?? [],
    baseScore: item.significance_score,
    sourceName: item.source.name,
    sourceUrl: item.source_url,
    ...(draft.classification
      ? {
          reading: {
            kind: draft.classification.kind,
            dead: draft.classification.casualties.dead,
            city: item.city ?? null,
          },
        }
      : {}),
  };
}
