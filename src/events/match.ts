/**
 * Which event a new signal belongs to, given the candidate events (pure; src/events/link.ts
 * fetches the candidates and writes the outcome). Rules in order (src/events/README.md):
 * 1. a shared upstream key (CVE, GLIDE, USGS/GDACS/EONET id);
 * 2. the same earthquake (epicentre, origin time and magnitude close enough);
 * 3. the same news story (similar text, compatible layers, agreeing countries, in the window,
 *    no actor veto).
 * Rules 1 and 2 are facts: every event they match is the same, so the oldest absorbs the others
 * (a merge); two measured quakes that rule 2 keeps apart are never linked by their text. Rule 3 is a judgement: the signal joins the most similar event and merges nothing.
 */
import type { Layer } from '../vocab';
import type { ExtractedEntity } from '../reading/entities';
import { withoutOutlet } from '../reading/features';
import { kindsNamed, layerOfKind } from '../reading/kinds';
import { distanceKm, type Quake } from './keys';
import { COMPATIBLE_LAYERS, KIND_FAMILIES, NEWS, QUAKE } from './rules';
import { similarity, textFeatures, type TextFeatures } from './text';

const DAY = 86_400_000;

/** One member text an event keeps to compare with. */
export interface EventText {
  title: string;
  summary: string;
  /** Places and actors named (from entity extraction): the actor veto reads them. */
  places: string[];
  actors: string[];
  /**
   * What the reading (src/reading) found, carried from ingest: the event kind, the dead counted,
   * the city placed. Language-independent, so reports in two languages can be compared. Absent
   * on texts stored before they were carried and on feeds without a reading.
   */
  kind?: string | null;
  dead?: number | null;
  city?: string | null;
}

/**
 * The text an event keeps of a member: the headline and the start of the summary, without the
 * headline the summary repeats and, on a news item (one the reader read: `reading` is set),
 * without the outlet's name an aggregator appends ("… - BBC": a name in every story of that
 * outlet, which would index and match unrelated stories). Its `entities` come from the same text
 * (`entityText`), so the outlet is no actor either.
 */
export function eventTextOf(input: {
  title: string;
  content: string;
  entities: readonly ExtractedEntity[];
  reading?: Pick<EventText, 'kind' | 'dead' | 'city'>;
}): EventText {
  const { title, summary: body } = readText(input.title, input.content, Boolean(input.reading));
  const summary = body.startsWith(title) ? body.slice(title.length).trim() : body;
  return {
    title,
    summary: summary.slice(0, NEWS.summaryChars),
    places: input.entities.filter((e) => e.type === 'location').map((e) => e.name),
    actors: input.entities.filter((e) => e.type !== 'location').map((e) => e.name),
    ...input.reading,
  };
}

/** Headline and body, without an aggregator's outlet suffix on a news item (a feed's title keeps its " - place"). */
const readText = (title: string, content: string, news: boolean) =>
  news ? withoutOutlet(title.trim(), content.trim()) : { title: title.trim(), summary: content.trim() };

/** The text a signal's entities are read from (the text `eventTextOf` keeps, whole). */
export function entityText(title: string, content: string, news: boolean): string {
  const text = readText(title, content, news);
  return `${text.title}\n${text.summary}`;
}

/** An event as the linker sees it. */
export interface CandidateEvent {
  id: string;
  threatLayer: Layer;
  countryCodes: string[];
  firstSeenAt: number;
  lastSeenAt: number;
  createdAt: number;
  upstreamKeys: string[];
  texts: EventText[];
  quake: Quake | null;
  /** Features of `texts`, computed once per event and batch. */
  features?: TextFeatures[];
}

/** A new signal as the linker sees it. */
export interface NewSignal {
  id: string;
  threatLayer: Layer;
  countryCodes: string[];
  publishedAt: number;
  upstreamKeys: string[];
  quake: Quake | null;
  text: EventText;
  features: TextFeatures;
}

type LinkRule = 'upstream_key' | 'quake' | 'news';

export interface Match {
  event: CandidateEvent;
  rule: LinkRule;
  /** Further events the same facts show to be this one: merged into `event`. */
  merge: CandidateEvent[];
  similarity?: number;
}

/** Older first: the event that keeps its id in a merge. */
const byAge = (a: CandidateEvent, b: CandidateEvent) =>
  a.createdAt - b.createdAt || a.firstSeenAt - b.firstSeenAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function factMatch(events: CandidateEvent[], rule: LinkRule): Match | null {
  if (events.length === 0) return null;
  const [event, ...merge] = [...events].sort(byAge);
  return { event: event!, rule, merge };
}

/** True when two quake reports are one earthquake (QUAKE limits). */
function sameQuake(a: Quake, b: Quake): boolean {
  return (
    Math.abs(a.at - b.at) <= QUAKE.minutes * 60_000 &&
    Math.abs(a.magnitude - b.magnitude) <= QUAKE.magnitude + 1e-9 &&
    distanceKm(a, b) <= QUAKE.km
  );
}

export const layersLink = (a: Layer, b: Layer): boolean => COMPATIBLE_LAYERS[a].includes(b);

/** Within the window of the event's members' times. */
function inWindow(signal: NewSignal, event: CandidateEvent): boolean {
  const window = NEWS.windowDays * DAY;
  return signal.publishedAt >= event.firstSeenAt - window && signal.publishedAt <= event.lastSeenAt + window;
}

const MARKS = /\p{M}/gu;
const norm = (name: string) => name.normalize('NFKD').replace(MARKS, '').toLowerCase();

/** What the actor veto compares of a text, normalised. */
interface VetoForm {
  places: Set<string>;
  text: string;
  /** Each actor's words of three letters or more. */
  actors: string[][];
}

// Normalised once per text: an event's texts meet every signal of a batch that comes near it.
const vetoForms = new WeakMap<EventText, VetoForm>();

function vetoForm(text: EventText): VetoForm {
  let form = vetoForms.get(text);
  if (!form) {
    form = {
      places: new Set(text.places.map(norm)),
      text: norm(`${text.title} ${text.summary}`),
      actors: text.actors.map((actor) =>
        norm(actor)
          .split(/\s+/)
          .filter((w) => w.length >= 3),
      ),
    };
    vetoForms.set(text, form);
  }
  return form;
}

function sharesAny(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const value of a) if (b.has(value)) return true;
  return false;
}

/**
 * The actor veto: both texts name a place in common and each names actors, none shared and
 * none mentioned anywhere in the other's text: the same place, different protagonists (a
 * strike by one side and a strike by the other, two trials in one city).
 */
export function actorVeto(a: EventText, b: EventText): boolean {
  const formA = vetoForm(a);
  const formB = vetoForm(b);
  if (!sharesAny(formA.places, formB.places)) return false;
  if (a.actors.length === 0 || b.actors.length === 0) return false;
  // By stem: "Zelenskyy" is mentioned by a text saying "Zelensky", "Putin" by "Putin's".
  const mentioned = (words: string[], text: string) =>
    words.length > 0 && words.some((w) => text.includes(w.slice(0, NEWS.stemLength)));
  if (formA.actors.some((words) => mentioned(words, formB.text))) return false;
  if (formB.actors.some((words) => mentioned(words, formA.text))) return false;
  return true;
}

const kindCache = new WeakMap<EventText, Set<string>>();

/**
 * The kinds of disaster a text reports: the kind its reading carried, else the disaster kinds
 * its words name in any supported language (the one taxonomy, src/reading/data/kinds.json).
 */
function hazardsOf(text: EventText): Set<string> {
  let kinds = kindCache.get(text);
  if (!kinds) {
    kinds =
      text.kind && layerOfKind(text.kind) === 'disaster'
        ? new Set([text.kind])
        : new Set(kindsNamed(`${text.title} ${text.summary}`, 'disaster'));
    kindCache.set(text, kinds);
  }
  return kinds;
}

/** The event kinds a text stands for when looked up: its reading's kind, else its disaster kinds. */
function kindsOfText(text: EventText): string[] {
  return text.kind ? [text.kind] : [...hazardsOf(text)];
}

const HOUR = 3_600_000;

/**
 * Two reports state the same facts (src/events/README.md, rule 3b): the same event kind, in a
 * shared country, within `NEWS.factHours`, and the same casualty figure or the same city. Words
 * play no part, so a Russian and an English report of one strike meet; distinct strikes of one
 * war on one day differ in place or toll.
 */
function sameFacts(
  a: EventText,
  aCountries: readonly string[],
  b: EventText,
  bCountries: readonly string[],
  hours: number,
): boolean {
  if (!kinMatch(a, b) || hours > NEWS.factHours) return false;
  if (!aCountries.some((c) => bCountries.includes(c))) return false;
  return sameDead(a, b) || (Boolean(a.city) && a.city === b.city);
}

/** The family of an event kind (kinds outside a family are their own). */
const familyOf = (kind: string): string => KIND_FAMILIES[kind] ?? kind;

/** Both texts carry a kind from their reading, of one family. */
function kinMatch(a: EventText, b: EventText): boolean {
  return Boolean(a.kind && b.kind) && familyOf(a.kind!) === familyOf(b.kind!);
}

/** Both give a death toll, and it is the same. */
function sameDead(a: EventText, b: EventText): boolean {
  return (a.dead ?? 0) > 0 && a.dead === b.dead;
}

/** The texts state a fact that differs: two cities, or two death tolls. */
function contradict(a: EventText, b: EventText): boolean {
  if (a.city && b.city && a.city !== b.city) return true;
  return (a.dead ?? 0) > 0 && (b.dead ?? 0) > 0 && !sameDead(a, b);
}

/**
 * Distinct incidents of one kind: both texts place the event in a city, the cities differ, and
 * the kind is an attack or a crime (a quake or a storm strikes many cities at once).
 */
function distinctPlaces(a: EventText, b: EventText): boolean {
  if (!a.city || !b.city || a.city === b.city || !kinMatch(a, b)) return false;
  const layer = layerOfKind(a.kind!);
  return layer === 'military' || layer === 'criminal';
}

function sharesHazard(signal: NewSignal, event: CandidateEvent): boolean {
  const mine = hazardsOf(signal.text);
  if (mine.size === 0) return false;
  return event.texts.some((t) => [...hazardsOf(t)].some((kind) => mine.has(kind)));
}

/** The similarity a pair needs, by layers and countries; null when they may never link. */
function newsThreshold(signal: NewSignal, event: CandidateEvent): number | null {
  if (!layersLink(signal.threatLayer, event.threatLayer)) return null;
  const a = signal.countryCodes;
  const b = event.countryCodes;
  let bar: number = signal.threatLayer === event.threatLayer ? NEWS.sameLayer : NEWS.crossLayer;
  if (a.length > 0 && b.length > 0) {
    if (!a.some((c) => b.includes(c))) return null;
    // One country, one kind of disaster, within days: reports of one disaster rarely share words
    // beyond those ("Colombia quake" and "in shattered Cali").
    if (signal.threatLayer === 'disaster' && event.threatLayer === 'disaster' && sharesHazard(signal, event))
      bar = NEWS.sameHazard;
  } else if (a.length > 0 || b.length > 0) {
    bar = Math.max(bar, NEWS.oneSidedCountry);
  }
  return bar;
}

// Features by text object: a text moves between events and batches' in-memory states, and its
// features never change. Weak, so texts of finished batches are collected.
const featureCache = new WeakMap<EventText, TextFeatures>();
// Features by content, shared across requests (a pure function of the words): stored candidates
// arrive as new objects in every batch, and the same few thousand recent events are candidates
// of batch after batch. Bounded; the oldest entry goes first.
const featuresByContent = new Map<string, TextFeatures>();
const CONTENT_CACHE = 20_000;

/** The features of one text, computed once. */
export function featuresOf(text: EventText): TextFeatures {
  let features = featureCache.get(text);
  if (!features) {
    const key = `${text.title}\u0000${text.summary}`;
    features = featuresByContent.get(key);
    if (!features) {
      features = textFeatures(text.title, text.summary);
      if (featuresByContent.size >= CONTENT_CACHE)
        featuresByContent.delete(featuresByContent.keys().next().value!);
      featuresByContent.set(key, features);
    }
    featureCache.set(text, features);
  }
  return features;
}

/** Features of an event's texts (cached on the event). */
function eventFeatures(event: CandidateEvent): TextFeatures[] {
  event.features ??= event.texts.map(featuresOf);
  return event.features;
}

/** The event `signal` belongs to among `candidates`, or null (it founds its own). */
export function matchSignal(signal: NewSignal, candidates: readonly CandidateEvent[]): Match | null {
  const keys = new Set(signal.upstreamKeys);
  const byKey = keys.size > 0 ? candidates.filter((e) => e.upstreamKeys.some((k) => keys.has(k))) : [];
  const key = factMatch(byKey, 'upstream_key');
  if (key) return key;
  if (signal.quake) {
    const quake = factMatch(
      candidates.filter((e) => e.quake && sameQuake(signal.quake!, e.quake)),
      'quake',
    );
    if (quake) return quake;
  }
  let best: Match | null = null;
  let bestMargin = 0;
  for (const event of candidates) {
    if (event.texts.length === 0 || !inWindow(signal, event)) continue;
    // Two measured quakes that are not the same quake are different events, however alike
    // their texts ("M 5.5 - off the coast of …").
    if (signal.quake && event.quake) continue;
    const bar = newsThreshold(signal, event);
    if (bar === null) continue;
    const features = eventFeatures(event);
    const hours = Math.abs(signal.publishedAt - event.lastSeenAt) / HOUR;
    let score = 0;
    for (let i = 0; i < features.length; i++) {
      const text = event.texts[i]!;
      if (distinctPlaces(signal.text, text)) continue;
      let s = similarity(signal.features, features[i]!);
      if (sameFacts(signal.text, signal.countryCodes, text, event.countryCodes, hours))
        s = Math.max(s, bar + NEWS.factMargin);
      else if (
        s >= NEWS.sameKind &&
        hours <= NEWS.kindHours &&
        kinMatch(signal.text, text) &&
        !contradict(signal.text, text) &&
        signal.countryCodes.some((c) => event.countryCodes.includes(c))
      )
        s = Math.max(s, bar);
      if (s >= bar && actorVeto(signal.text, text)) continue;
      score = Math.max(score, s);
    }
    // The best event is the one cleared by the widest margin: a same-layer story beats an
    // equally similar one that only a compatible layer lets in.
    const margin = score - bar;
    if (
      score >= bar &&
      (!best || margin > bestMargin || (margin === bestMargin && byAge(event, best.event) < 0))
    ) {
      best = { event, rule: 'news', merge: [], similarity: score };
      bestMargin = margin;
    }
  }
  return best;
}

// Ranked once per text: an event's terms are rebuilt from its kept texts at every change.
const headlineCache = new WeakMap<TextFeatures, string[]>();

/**
 * The headline words of a text that index its event (day-bucketed by `termsOf`): its most
 * telling few, names before other words and longer before shorter, so a lookup reads short
 * posting lists rather than every event that says "attack".
 */
export function headlineWords(features: TextFeatures): string[] {
  const known = headlineCache.get(features);
  if (known) return known;
  const ranked = [...features.head.entries()].sort(
    ([a, wa], [b, wb]) => wb - wa || b.length - a.length || (a < b ? -1 : 1),
  );
  // Names (places, actors) when the headline has any: common words make long posting lists.
  const names = ranked.filter(([, weight]) => weight >= NEWS.nameWeight);
  const words = (names.length > 0 ? names : ranked).slice(0, NEWS.termWords).map(([word]) => word);
  headlineCache.set(features, words);
  return words;
}

/**
 * The candidate-index terms of an event or a signal: each headline word per day it covers
 * (`w:<word>@<day>`), and for a quake each half hour around its origin (`q@<slot>`). A new
 * signal looks up its words over the window's days, so a lookup only meets events of those days.
 */
export function termsOf(
  words: Iterable<string>,
  fromMs: number,
  toMs: number,
  quake: Quake | null,
): string[] {
  const out = new Set<string>();
  // A long-running event is indexed on its latest days: that is where new reports arrive.
  const last = Math.floor(toMs / DAY);
  const first = Math.max(Math.floor(fromMs / DAY), last - 2 * NEWS.windowDays - 6);
  const list = [...words];
  for (let day = first; day <= last; day++) for (const w of list) out.add(`w:${w}@${day}`);
  if (quake) {
    const slot = Math.floor(quake.at / (QUAKE.minutes * 60_000));
    for (const s of [slot - 1, slot, slot + 1]) out.add(`q@${s}`);
  }
  return [...out];
}

/**
 * Index words for the event kinds of an event's texts in each of its countries
 * (`hz:earthquake:CO`, `hz:shelling:UA`), so reports that share no word (two languages, or
 * "Colombia quake" and "in shattered Cali") still meet. Disaster texts without a carried kind
 * give the disaster kinds their words name.
 */
function hazardWords(layer: Layer, countries: readonly string[], texts: readonly EventText[]): string[] {
  const kinds = new Set(texts.flatMap((t) => (t.kind || layer === 'disaster' ? kindsOfText(t) : [])));
  return [...kinds].flatMap((kind) => countries.slice(0, 5).map((c) => `hz:${kind}:${c}`));
}

// A signal's lookup is read twice (the stored lookup, then the batch's own index).
const lookupCache = new WeakMap<NewSignal, string[]>();

/** The terms a new signal looks up: its words over the window, its quake's slots. */
export function lookupTerms(signal: NewSignal): string[] {
  const known = lookupCache.get(signal);
  if (known) return known;
  const window = NEWS.windowDays * DAY;
  const words = [
    ...headlineWords(signal.features),
    ...hazardWords(signal.threatLayer, signal.countryCodes, [signal.text]),
  ];
  const terms = termsOf(words, signal.publishedAt - window, signal.publishedAt + window, signal.quake);
  lookupCache.set(signal, terms);
  return terms;
}

/** The terms an event is indexed under (its texts' headline words over its days, its quake). */
export function eventTerms(event: CandidateEvent): string[] {
  const words = new Set<string>();
  for (const text of event.texts) for (const w of headlineWords(featuresOf(text))) words.add(w);
  for (const w of hazardWords(event.threatLayer, event.countryCodes, event.texts)) words.add(w);
  return termsOf(words, event.firstSeenAt, event.lastSeenAt, event.quake);
}

/** The facts an event takes from a new member or from an event merged into it. */
type Facts = Pick<CandidateEvent, 'countryCodes' | 'firstSeenAt' | 'lastSeenAt' | 'upstreamKeys' | 'quake'>;

/** Adds `from`'s countries, time span, upstream keys and quake to `into` (in memory). */
function addFacts(into: CandidateEvent, from: Facts) {
  into.countryCodes = [...new Set([...into.countryCodes, ...from.countryCodes])];
  into.firstSeenAt = Math.min(into.firstSeenAt, from.firstSeenAt);
  into.lastSeenAt = Math.max(into.lastSeenAt, from.lastSeenAt);
  into.upstreamKeys = [...new Set([...into.upstreamKeys, ...from.upstreamKeys])].sort();
  into.quake ??= from.quake;
  into.features = undefined;
}

/** Adds a member's facts to an event (in memory). */
function absorb(event: CandidateEvent, signal: NewSignal) {
  addFacts(event, {
    countryCodes: signal.countryCodes,
    firstSeenAt: signal.publishedAt,
    lastSeenAt: signal.publishedAt,
    upstreamKeys: signal.upstreamKeys,
    quake: signal.quake,
  });
  // The founder's text stays; the latest others replace the oldest of them.
  event.texts = [...event.texts, signal.text];
  if (event.texts.length > NEWS.maxTexts) event.texts.splice(1, event.texts.length - NEWS.maxTexts);
}

/** Folds `from` (merged away) into `into` (in memory). */
function fold(into: CandidateEvent, from: CandidateEvent) {
  addFacts(into, from);
  into.texts = [...into.texts, ...from.texts].slice(0, NEWS.maxTexts);
}

/** What linking one batch decided, in memory: src/events/link.ts writes it. */
export interface BatchLinks {
  /** Signal id → the live event it belongs to. */
  events: Map<string, string>;
  /** Live events the batch founded or changed (candidates it absorbed signals into), by id. */
  touched: Map<string, CandidateEvent>;
  /** Ids of the events the batch founded. */
  created: Set<string>;
  /** Event id → the event it was merged into (follow the chain to a live one). */
  mergedInto: Map<string, string>;
  joined: number;
  merged: number;
}

/** Publication order, then id: the first report founds the event. */
const byPublication = (a: NewSignal, b: NewSignal) =>
  a.publishedAt - b.publishedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Links a batch of new signals to events (pure: no I/O; the candidate events it is given are
 * updated in place as signals join them). Signals are taken in publication order; each is
 * matched (`matchSignal`) against its stored candidates (`storedOf`, as the database lookup
 * found them) and the events of this batch its index terms meet, bounded like the stored lookup,
 * then joins the match or founds its own event (`createdAt` = `now`). Ingest
 * (src/events/link.ts) and the reader's cross-validation (scripts/reader/link-sim.ts) both run
 * this, so the CV measures the linking that runs.
 */
export function linkBatch(
  signals: readonly NewSignal[],
  storedOf: (signal: NewSignal) => readonly CandidateEvent[],
  now: number,
): BatchLinks {
  const out: BatchLinks = {
    events: new Map(),
    touched: new Map(),
    created: new Set(),
    mergedInto: new Map(),
    joined: 0,
    merged: 0,
  };
  // Events of this batch by index term, so a later signal of the batch finds them (ten outlets
  // in one poll). An event is filed as its slot in `filed`, so the terms a signal shares with
  // each are counted in a typed array (every signal meets most of a busy batch's events).
  const filed: CandidateEvent[] = [];
  const slots = new Map<CandidateEvent, number>();
  const index = new Map<string, Set<number>>();
  const file = (term: string, event: CandidateEvent) => {
    let slot = slots.get(event);
    if (slot === undefined) {
      slot = filed.push(event) - 1;
      slots.set(event, slot);
    }
    let set = index.get(term);
    if (!set) index.set(term, (set = new Set()));
    set.add(slot);
  };
  let shared = new Uint32Array(64);
  const live = (event: CandidateEvent): CandidateEvent => {
    let id = event.id;
    while (out.mergedInto.has(id)) id = out.mergedInto.get(id)!;
    return out.touched.get(id) ?? event;
  };
  for (const signal of [...signals].sort(byPublication)) {
    const pool = new Map<string, CandidateEvent>();
    for (const event of storedOf(signal)) {
      const current = live(event);
      pool.set(current.id, current);
    }
    if (shared.length < filed.length) shared = new Uint32Array(filed.length * 2);
    // The slots met, in the order first met; `shared` counts the terms each shares.
    const met: number[] = [];
    const meet = (term: string) => {
      for (const slot of index.get(term) ?? []) if (shared[slot]!++ === 0) met.push(slot);
    };
    for (const term of lookupTerms(signal)) meet(term);
    for (const key of signal.upstreamKeys) meet(`k:${key}`);
    // Bounded like the stored lookup: the batch events sharing the most terms (the first met
    // first among equals: the sort is stable).
    const closest = [...met].sort((a, b) => shared[b]! - shared[a]!).slice(0, NEWS.maxCandidates);
    for (const slot of met) shared[slot] = 0;
    for (const slot of closest) {
      const current = live(filed[slot]!);
      pool.set(current.id, current);
    }
    const match = matchSignal(signal, [...pool.values()]);
    let event: CandidateEvent;
    if (!match) {
      event = {
        id: signal.id,
        threatLayer: signal.threatLayer,
        countryCodes: [...signal.countryCodes],
        firstSeenAt: signal.publishedAt,
        lastSeenAt: signal.publishedAt,
        createdAt: now,
        upstreamKeys: [...signal.upstreamKeys],
        texts: [signal.text],
        quake: signal.quake,
      };
      out.created.add(event.id);
    } else {
      event = match.event;
      absorb(event, signal);
      out.joined += 1;
      for (const other of match.merge) {
        if (other.id === event.id) continue;
        fold(event, other);
        out.mergedInto.set(other.id, event.id);
        out.touched.delete(other.id);
        out.merged += 1;
      }
    }
    out.touched.set(event.id, event);
    for (const term of eventTerms(event)) file(term, event);
    for (const key of event.upstreamKeys) file(`k:${key}`, event);
    out.events.set(signal.id, event.id);
  }
  for (const [signalId, eventId] of out.events) {
    let id = eventId;
    while (out.mergedInto.has(id)) id = out.mergedInto.get(id)!;
    out.events.set(signalId, id);
  }
  return out;
}
