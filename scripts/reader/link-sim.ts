/**
 * The project's event linking (src/events/match.ts) run in memory over read items, as
 * `linkSignals` (src/events/link.ts) runs one ingest batch: items in publication order, each
 * matched against the events its index terms meet, joining one or founding its own. Used by the
 * training script to count same-event pairs linked on out-of-fold readings.
 */
import { extractEntities } from '../../src/reading/entities';
import { quakeOf, upstreamKeys } from '../../src/events/keys';
import {
  featuresOf,
  hazardWords,
  headlineWords,
  lookupTerms,
  matchSignal,
  termsOf,
  type CandidateEvent,
  type EventText,
  type NewSignal,
} from '../../src/events/match';
import { NEWS } from '../../src/events/rules';
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

function eventTerms(event: CandidateEvent): string[] {
  const words = new Set<string>();
  for (const text of event.texts) for (const w of headlineWords(featuresOf(text))) words.add(w);
  for (const w of hazardWords(event.threatLayer, event.countryCodes, event.texts)) words.add(w);
  return termsOf(words, event.firstSeenAt, event.lastSeenAt, event.quake);
}

/** Item id → event id, linking every item as one batch. */
export function linkAll(items: readonly LinkItem[]): Map<string, string> {
  const ordered = [...items].sort((a, b) => a.publishedAt - b.publishedAt || (a.id < b.id ? -1 : 1));
  const index = new Map<string, Set<CandidateEvent>>();
  const out = new Map<string, string>();
  const mergedInto = new Map<string, string>();
  const events = new Map<string, CandidateEvent>();
  const live = (e: CandidateEvent): CandidateEvent => {
    let id = e.id;
    while (mergedInto.has(id)) id = mergedInto.get(id)!;
    return events.get(id) ?? e;
  };
  let created = 0;
  for (const item of ordered) {
    const entities = extractEntities(`${item.title}\n${item.summary}`);
    const text: EventText = {
      title: item.title,
      summary: item.summary.slice(0, NEWS.summaryChars),
      places: entities.filter((e) => e.type === 'location').map((e) => e.name),
      actors: entities.filter((e) => e.type !== 'location').map((e) => e.name),
      kind: item.kind,
      dead: item.dead,
      city: item.city,
    };
    const signal: NewSignal = {
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
    const near = new Map<CandidateEvent, number>();
    for (const term of [...lookupTerms(signal), ...signal.upstreamKeys.map((k) => `k:${k}`)])
      for (const e of index.get(term) ?? []) near.set(e, (near.get(e) ?? 0) + 1);
    const pool = new Map<string, CandidateEvent>();
    for (const [e] of [...near.entries()].sort((a, b) => b[1] - a[1]).slice(0, NEWS.maxCandidates)) {
      const current = live(e);
      pool.set(current.id, current);
    }
    const match = matchSignal(signal, [...pool.values()]);
    let event: CandidateEvent;
    if (!match) {
      event = {
        id: item.id,
        threatLayer: item.layer,
        countryCodes: [...item.countries],
        firstSeenAt: item.publishedAt,
        lastSeenAt: item.publishedAt,
        createdAt: created++,
        upstreamKeys: [...signal.upstreamKeys],
        texts: [text],
        quake: signal.quake,
      };
    } else {
      event = match.event;
      event.countryCodes = [...new Set([...event.countryCodes, ...item.countries])];
      event.firstSeenAt = Math.min(event.firstSeenAt, item.publishedAt);
      event.lastSeenAt = Math.max(event.lastSeenAt, item.publishedAt);
      event.upstreamKeys = [...new Set([...event.upstreamKeys, ...signal.upstreamKeys])].sort();
      event.features = undefined;
      event.texts = [...event.texts, text];
      if (event.texts.length > NEWS.maxTexts) event.texts.splice(1, event.texts.length - NEWS.maxTexts);
      for (const other of match.merge) {
        if (other.id === event.id) continue;
        mergedInto.set(other.id, event.id);
        events.delete(other.id);
      }
    }
    events.set(event.id, event);
    for (const term of [...eventTerms(event), ...event.upstreamKeys.map((k) => `k:${k}`)]) {
      let set = index.get(term);
      if (!set) index.set(term, (set = new Set()));
      set.add(event);
    }
    out.set(item.id, event.id);
  }
  for (const [id, eventId] of out) {
    let e = eventId;
    while (mergedInto.has(e)) e = mergedInto.get(e)!;
    out.set(id, e);
  }
  return out;
}
