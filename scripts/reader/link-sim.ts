/**
 * The project's event linking run in memory over read items: `linkBatch` (src/events/match.ts),
 * the same function `linkSignals` (src/events/link.ts) runs on each ingest batch, with no stored
 * events. Used by the training script to count same-event pairs linked on out-of-fold readings.
 */
import { extractEntities } from '../../src/reading/entities';
import { quakeOf, upstreamKeys } from '../../src/events/keys';
import { entityText, eventTextOf, featuresOf, linkBatch, type NewSignal } from '../../src/events/match';
import type { Layer } from '../../src/vocab';

export interface LinkItem {
  id: string;
  layer: Layer;
  countries: string[];
  publishedAt: number;
  title: string;
  summary: string;
  /** The reading carried to linking (as ingest carries it). */
  kind: string | null;
  dead: number | null;
  city: string | null;
}

/** Item id → event id, linking every item as one batch, as ingest links one (`linkBatch`). */
export function linkAll(items: readonly LinkItem[]): Map<string, string> {
  const signals = items.map((item): NewSignal => {
    const text = eventTextOf({
      title: item.title,
      content: item.summary,
      entities: extractEntities(entityText(item.title, item.summary, true)),
      reading: { kind: item.kind, dead: item.dead, city: item.city },
    });
    return {
      id: item.id,
      threatLayer: item.layer,
      countryCodes: item.countries,
      publishedAt: item.publishedAt,
      upstreamKeys: upstreamKeys([], item.title, item.summary),
      quake: quakeOf({
        threatLayer: item.layer,
        externalIds: [],
        title: item.title,
        content: item.summary,
        lat: null,
        lng: null,
        publishedAt: new Date(item.publishedAt),
      }),
      text,
      features: featuresOf(text),
    };
  });
  // Nothing stored: every event is one of this batch's, found through the batch's own index.
  return linkBatch(signals, () => [], 0).events;
}
