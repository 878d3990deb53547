/**
 * Deterministic demo data: realistic-looking signals for local development, demos and tests.
 *
 * Everything comes from one seeded PRNG (mulberry32), so the same (count, now, seed) always
 * yields the same output. Signals are drawn from three streams:
 * - storylines: about thirty evolving stories (a siege, a ransomware campaign, a port strike,
 *   a cholera outbreak...) with fixed places, people and organisations, moving from crisis
 *   through updates to resolution over days, so related signals share entities and terms;
 * - bursts: four sudden events in the last six hours, far above their country/layer baseline;
 * - background: one-off signals anywhere in the place table over the whole 30-day window.
 * People, threat groups, outlets and events are fictional; places and coordinates are real.
 */
import { z } from 'zod';
import { COUNTRIES } from '../countries';
import { LAYERS, REGIONS, SOURCE_TIERS, type Layer, type Region, type Valence } from '../vocab';
import placesData from './demo/places.json';
import sourcesData from './demo/sources.json';
import storylinesData from './demo/storylines.json';
import templatesData from './demo/templates.json';

export interface DemoItem {
  threat_layer: string;
  significance_score: number;
  signal_valence: 'crisis' | 'update' | 'resolution';
  title: string;
  content_display: string;
  country_codes: string[];
  city: string | null;
  lat: number | null;
  lng: number | null;
  language: string;
  published_at: string;
  collected_at: string;
  source_url: string;
  source: { name: string; url: string; tier: 'core' | 'community' | 'discovered'; language: string };
}

export interface DemoOptions {
  count: number;
  now: Date;
  seed?: number;
}

const DEFAULT_SEED = 20240601;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WINDOW_DAYS = 30;
const RECENT_WINDOW = 6 * HOUR;

const STORYLINE_SHARE = 0.6;
const BURST_SHARE = 0.08;
/** Share of ongoing-story and background signals placed in the last six hours: a live, denser stream. */
const RECENT_SHARE = 0.1;
const NO_CITY_SHARE = 0.1;
const SECOND_COUNTRY_SHARE = 0.6;
const NATIVE_LANGUAGE_SHARE = 0.35;

type Rng = () => number;

/** mulberry32: tiny, fast, good enough for demo data, and identical on every runtime. */
function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;
const between = (rng: Rng, min: number, max: number): number => min + rng() * (max - min);
const intBetween = (rng: Rng, min: number, max: number): number => Math.floor(between(rng, min, max + 1));

/*
 * The tables (places, outlets, storylines, text templates) are data in ./demo/*.json, checked by
 * the schemas below when the module loads, so a broken table fails at start, not mid-generation.
 */
const PlaceSchema = z.strictObject({
  code: z.string().regex(/^[A-Z]{2}$/),
  city: z.string().min(1),
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});
type Place = z.infer<typeof PlaceSchema>;

/** A fictional outlet. With `regions` or `layers` set it only reports on those. */
const DemoSourceSchema = z.strictObject({
  name: z.string().min(1),
  /** Always a reserved `.example` domain (RFC 2606): nothing is attributed to a real outlet. */
  domain: z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*\.example$/),
  tier: z.enum(SOURCE_TIERS),
  language: z.string().min(2),
  regions: z.array(z.enum(REGIONS)).optional(),
  layers: z.array(z.enum(LAYERS)).optional(),
});
type DemoSource = z.infer<typeof DemoSourceSchema>;

const byValence = <T extends z.ZodType>(value: T) =>
  z.strictObject({ crisis: value, update: value, resolution: value });
const byLayer = <T extends z.ZodType>(value: T) =>
  z.strictObject(Object.fromEntries(LAYERS.map((layer) => [layer, value])) as Record<Layer, T>);
const texts = z.array(z.string().min(1)).min(1);

/**
 * Placeholders: {A} {B} organisations ({a} {b} without a leading "the"; headlines use short forms),
 * {P} {Q} people with their titles, {city}, {country}, {subject}, {term}, {weekday} and the
 * numbers {n} {N} {pct} {bps} {dec} {mag}.
 */
const PhaseTemplatesSchema = z.strictObject({
  titles: byValence(texts),
  leads: byValence(texts),
  details: texts,
});

/** A person; headlines use `short`, else the last word of the name. */
const PersonSchema = z.strictObject({
  title: z.string(),
  name: z.string().min(1),
  short: z.string().optional(),
});
/** `name` as written in running text, with "the" where English needs it; `short` the headline form. */
const OrgSchema = z.strictObject({ name: z.string().min(1), short: z.string().optional() });

const StorylineSchema = z.strictObject({
  layer: z.enum(LAYERS),
  codes: z.array(z.string().regex(/^[A-Z]{2}$/)).min(1),
  /** A city of places.json. */
  city: z.string().min(1),
  /** When the story begins, in days before `now`. */
  startDaysAgo: z.number(),
  /** When it resolves, in days before `now`; negative means still running after `now`. */
  endDaysAgo: z.number(),
  /** Added to the phase's base score: how grave the story is. */
  severity: z.number(),
  /** Relative share of storyline signals. */
  weight: z.number().positive(),
  subject: z.string().min(1),
  people: z.tuple([PersonSchema, PersonSchema]),
  orgs: z.tuple([OrgSchema, OrgSchema]),
  terms: texts,
  /** For stories the layer's generic templates cannot tell. */
  templates: PhaseTemplatesSchema.optional(),
});
type Storyline = z.infer<typeof StorylineSchema>;

/** Short reports in the outlet's own language; {place}, {topic} and {org} are filled in. */
const NativeTemplatesSchema = z.strictObject({
  topics: byLayer(z.string().min(1)),
  titles: byValence(z.string().min(1)),
  contents: byValence(z.string().min(1)),
});
type NativeTemplates = z.infer<typeof NativeTemplatesSchema>;

const TemplatesSchema = z.strictObject({
  phases: byLayer(PhaseTemplatesSchema),
  /** Shared closing sentences, used sparingly to vary length. */
  details: texts,
  /** One-off reports anywhere in the place table. */
  background: byLayer(
    z.array(z.strictObject({ title: z.string().min(1), content: z.string().min(1) })).min(1),
  ),
  native: z.record(z.string(), NativeTemplatesSchema),
  /** Organisations named in background reports written in another language. */
  native_orgs: texts,
});

/** Parses one table, naming the file and the first bad entries when it does not match. */
function table<T extends z.ZodType>(file: string, schema: T, data: unknown): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new Error(`src/ingest/demo/${file}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The four demo tables as read from ./demo/*.json, before they are checked. */
export interface DemoTableFiles {
  places: unknown;
  sources: unknown;
  storylines: unknown;
  templates: unknown;
}

/**
 * Checks the demo tables, across files too (every storyline city is a place, every non-English
 * outlet has templates in its language); throws naming the file and the entries that fail.
 */
export function parseDemoTables(files: DemoTableFiles) {
  const places = table('places.json', z.array(PlaceSchema).min(1), files.places);
  const cities = new Set(places.map((p) => p.city));
  const sources = table('sources.json', z.array(DemoSourceSchema).min(1), files.sources);
  const stories = table(
    'storylines.json',
    z
      .strictObject({ storylines: z.array(StorylineSchema).min(1), bursts: z.array(StorylineSchema).min(1) })
      .refine(
        (t) => [...t.storylines, ...t.bursts].every((story) => cities.has(story.city)),
        'every storyline city must be in places.json',
      ),
    files.storylines,
  );
  const templates = table(
    'templates.json',
    TemplatesSchema.refine(
      (t) => sources.every((s) => s.language === 'en' || s.language in t.native),
      'every non-English outlet language needs its native templates',
    ),
    files.templates,
  );
  return { places, sources, ...stories, templates };
}

const TABLES = parseDemoTables({
  places: placesData,
  sources: sourcesData,
  storylines: storylinesData,
  templates: templatesData,
});
const PLACES: readonly Place[] = TABLES.places;
const PLACE_BY_CITY = new Map(PLACES.map((p) => [p.city, p]));
const SOURCES: readonly DemoSource[] = TABLES.sources;
const STORYLINES: readonly Storyline[] = TABLES.storylines;
const BURSTS: readonly Storyline[] = TABLES.bursts;
const {
  phases: TEMPLATES,
  details: GENERIC_DETAILS,
  background: BACKGROUND,
  native: NATIVE,
  native_orgs: GENERIC_NATIVE_ORGS,
} = TABLES.templates;

type ItemSource = DemoItem['source'];

/**
 * Marks every demo source by name, wherever a source name appears (signals, feeds, exports, the
 * widget), without changing the source's shape; their domains are all reserved `.example` ones
 * (RFC 2606), so nothing fabricated is ever attributed to a real outlet.
 */
export const DEMO_SOURCE_SUFFIX = ' (demo)';

/** One shared source object per outlet: a million signals need not carry a million copies. */
const SOURCE_PAYLOADS = new Map<DemoSource, ItemSource>(
  SOURCES.map((s) => [
    s,
    {
      name: `${s.name}${DEMO_SOURCE_SUFFIX}`,
      url: `https://${s.domain}`,
      tier: s.tier,
      language: s.language,
    },
  ]),
);

const sourceCandidates = new Map<string, readonly DemoSource[]>();

function sourcesCovering(region: Region | null, layer: Layer): readonly DemoSource[] {
  const key = `${region}|${layer}`;
  let found = sourceCandidates.get(key);
  if (!found) {
    found = SOURCES.filter(
      (s) =>
        (!s.regions || (region !== null && s.regions.includes(region))) &&
        (!s.layers || s.layers.includes(layer)),
    );
    sourceCandidates.set(key, found);
  }
  return found;
}

const STORYLINE_WEIGHTS = cumulative(STORYLINES.map((s) => s.weight));

function cumulative(weights: readonly number[]): Float64Array {
  const total = weights.reduce((a, b) => a + b, 0);
  let running = 0;
  return Float64Array.from(weights, (w) => (running += w / total));
}

function pickWeighted<T>(rng: Rng, list: readonly T[], cumulativeWeights: Float64Array): T {
  const r = rng();
  const index = cumulativeWeights.findIndex((w) => r < w);
  return list[index < 0 ? list.length - 1 : index] as T;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** One signal before its source is chosen and its text is rendered. */
interface Draft {
  publishedMs: number;
  layer: Layer;
  valence: Valence;
  score: number;
  codes: string[];
  place: Place | null;
  story: Storyline | null;
}

const countryName = (code: string): string => COUNTRIES[code]?.name ?? code;
const roundScore = (score: number): number => Math.round(Math.min(10, Math.max(0, score)) * 10) / 10;
const wholeSecond = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/**
 * Generates `count` demo signals, oldest first. Same (count, now, seed) → same output.
 * Items from the same outlet share one `source` object.
 */
export function generateDemoSignals(opts: DemoOptions): DemoItem[] {
  const count = Math.max(0, Math.floor(opts.count));
  const nowMs = wholeSecond(opts.now.getTime());
  const rng = mulberry32(opts.seed ?? DEFAULT_SEED);
  const windowStart = nowMs - WINDOW_DAYS * DAY;
  const indexSpace = 2 ** Math.ceil(Math.log2(count + 1));
  const order = new Float64Array(count);
  const items: DemoItem[] = new Array<DemoItem>(count);
  for (let i = 0; i < count; i++) {
    const draft = drawSignal(rng, nowMs);
    items[i] = renderItem(rng, draft, i, nowMs);
    // Seconds since the window start, then the index: one sortable number, ties in generation order.
    order[i] = ((draft.publishedMs - windowStart) / SECOND) * indexSpace + i;
  }
  order.sort();
  const sorted = new Array<DemoItem>(count);
  for (let k = 0; k < count; k++) sorted[k] = items[(order[k] as number) % indexSpace] as DemoItem;
  return sorted;
}

function drawSignal(rng: Rng, nowMs: number): Draft {
  const stream = rng();
  if (stream < STORYLINE_SHARE)
    return storylineDraft(rng, pickWeighted(rng, STORYLINES, STORYLINE_WEIGHTS), nowMs);
  if (stream < STORYLINE_SHARE + BURST_SHARE) return burstDraft(rng, pick(rng, BURSTS), nowMs);
  return backgroundDraft(rng, nowMs);
}

function storylineDraft(rng: Rng, story: Storyline, nowMs: number): Draft {
  const startMs = nowMs - story.startDaysAgo * DAY;
  const endMs = nowMs - story.endDaysAgo * DAY;
  const ongoing = endMs > nowMs;
  const publishedMs = wholeSecond(
    ongoing && rng() < RECENT_SHARE
      ? nowMs - rng() * RECENT_WINDOW
      : startMs + rng() * (Math.min(endMs, nowMs) - startMs),
  );
  const valence = lifecycleValence(rng, (publishedMs - startMs) / (endMs - startMs));
  return {
    publishedMs,
    layer: story.layer,
    valence,
    score: storyScore(rng, valence, story.severity),
    codes: storyCodes(rng, story),
    place: rng() < NO_CITY_SHARE ? null : (PLACE_BY_CITY.get(story.city) ?? null),
    story,
  };
}

function burstDraft(rng: Rng, story: Storyline, nowMs: number): Draft {
  // Skewed toward the present, so the last hour is busiest.
  const publishedMs = wholeSecond(nowMs - rng() ** 1.5 * story.startDaysAgo * DAY);
  const valence: Valence = rng() < 0.6 ? 'crisis' : 'update';
  return {
    publishedMs,
    layer: story.layer,
    valence,
    score: storyScore(rng, valence, story.severity),
    codes: storyCodes(rng, story),
    place: rng() < NO_CITY_SHARE ? null : (PLACE_BY_CITY.get(story.city) ?? null),
    story,
  };
}

function backgroundDraft(rng: Rng, nowMs: number): Draft {
  const place = pick(rng, PLACES);
  const window = rng() < RECENT_SHARE ? RECENT_WINDOW : WINDOW_DAYS * DAY;
  const roll = rng();
  const valence: Valence = roll < 0.3 ? 'crisis' : roll < 0.85 ? 'update' : 'resolution';
  // Kept below storyline crises, so compound crises and spikes come from the stories.
  const base = valence === 'crisis' ? 4 : valence === 'update' ? 2 : 1.5;
  return {
    publishedMs: wholeSecond(nowMs - rng() * window),
    layer: pick(rng, LAYERS),
    valence,
    score: roundScore(base + rng() * 2.5),
    codes: [place.code],
    place: rng() < NO_CITY_SHARE ? null : place,
    story: null,
  };
}

/** Early signals are mostly crises, late ones (of stories that end) mostly resolutions. */
function lifecycleValence(rng: Rng, progress: number): Valence {
  const roll = rng();
  if (progress < 0.15) return roll < 0.85 ? 'crisis' : 'update';
  if (progress > 0.85) return roll < 0.7 ? 'resolution' : 'update';
  return roll < 0.2 ? 'crisis' : 'update';
}

function storyScore(rng: Rng, valence: Valence, severity: number): number {
  if (valence === 'crisis') return roundScore(6.2 + rng() * 2.6 + severity * 0.6);
  if (valence === 'update') return roundScore(3.5 + rng() * 3 + severity * 0.5);
  return roundScore(2.5 + rng() * 2.5 + severity * 0.3);
}

function storyCodes(rng: Rng, story: Storyline): string[] {
  return story.codes.length > 1 && rng() < SECOND_COUNTRY_SHARE ? [...story.codes] : story.codes.slice(0, 1);
}

function renderItem(rng: Rng, draft: Draft, index: number, nowMs: number): DemoItem {
  const primary = draft.codes[0] as string;
  const source = pick(rng, sourcesCovering(COUNTRIES[primary]?.region ?? null, draft.layer));
  const native =
    source.language !== 'en' && rng() < NATIVE_LANGUAGE_SHARE ? NATIVE[source.language] : undefined;
  const text = native ? nativeText(rng, draft, native) : englishText(rng, draft);
  const collectedMs = Math.min(nowMs, wholeSecond(draft.publishedMs + 3 * MINUTE + rng() ** 2 * 6 * HOUR));
  const slug = slugify(text.title) || slugify(`${draft.layer} ${draft.place?.city ?? countryName(primary)}`);
  const publishedAt = isoSeconds(draft.publishedMs);
  return {
    threat_layer: draft.layer,
    significance_score: draft.score,
    signal_valence: draft.valence,
    title: text.title,
    content_display: text.content,
    country_codes: draft.codes,
    city: draft.place?.city ?? null,
    lat: draft.place?.lat ?? null,
    lng: draft.place?.lng ?? null,
    language: native ? source.language : 'en',
    published_at: publishedAt,
    collected_at: isoSeconds(collectedMs),
    source_url: `https://${source.domain}/${publishedAt.slice(0, 4)}/${slug}-${index + 1}`,
    source: SOURCE_PAYLOADS.get(source) as ItemSource,
  };
}

interface Text {
  title: string;
  content: string;
}

const MAX_TITLE_WORDS = 12;
const TITLE_ATTEMPTS = 4;

function englishText(rng: Rng, draft: Draft): Text {
  const story = draft.story;
  const values = placeholderValues(rng, draft);
  if (!story) {
    const template = pick(rng, BACKGROUND[draft.layer]);
    return { title: fill(template.title, values), content: fill(template.content, values) };
  }
  const templates = story.templates ?? TEMPLATES[draft.layer];
  const sentences = [pick(rng, templates.leads[draft.valence])];
  if (rng() < 0.55) sentences.push(pick(rng, templates.details));
  if (rng() < 0.25) sentences.push(pick(rng, GENERIC_DETAILS));
  return {
    title: headline(rng, templates.titles[draft.valence], { ...values, ...headlineNames(story) }),
    content: storyContent(sentences, values, story),
  };
}

/** Full title and name at a person's first mention, surname after that, as reporters write. */
function storyContent(
  sentences: readonly string[],
  values: Readonly<Record<string, string>>,
  story: Storyline,
): string {
  const current = { ...values };
  return sentences
    .map((template) => {
      const text = fill(template, current);
      story.people.forEach((person, i) => {
        const key = i === 0 ? 'P' : 'Q';
        if (template.includes(`{${key}}`)) current[key] = person.short ?? lastWord(person.name);
      });
      return text;
    })
    .join(' ');
}

/** A headline of at most twelve words when the templates allow it: long names make some too wordy. */
function headline(rng: Rng, templates: readonly string[], values: Readonly<Record<string, string>>): string {
  let title = fill(pick(rng, templates), values);
  for (let attempt = 1; attempt < TITLE_ATTEMPTS && title.split(' ').length > MAX_TITLE_WORDS; attempt++) {
    title = fill(pick(rng, templates), values);
  }
  return title;
}

/** Headlines name people by surname and organisations by their short form, without articles. */
function headlineNames(story: Storyline): Record<string, string> {
  const [orgA, orgB] = story.orgs;
  const [first, second] = story.people;
  return {
    A: orgA.short ?? withoutArticle(orgA.name),
    B: orgB.short ?? withoutArticle(orgB.name),
    P: first.short ?? lastWord(first.name),
    Q: second.short ?? lastWord(second.name),
  };
}

function nativeText(rng: Rng, draft: Draft, native: NativeTemplates): Text {
  const values: Record<string, string> = {
    place: draft.place?.city ?? countryName(draft.codes[0] as string),
    topic: native.topics[draft.layer],
    org: draft.story ? withoutArticle(pick(rng, draft.story.orgs).name) : pick(rng, GENERIC_NATIVE_ORGS),
  };
  return {
    title: fill(native.titles[draft.valence], values),
    content: fill(native.contents[draft.valence], values),
  };
}

function placeholderValues(rng: Rng, draft: Draft): Record<string, string> {
  const story = draft.story;
  const country = proseCountryName(draft.codes[0] as string);
  return {
    A: story?.orgs[0].name ?? '',
    B: story?.orgs[1].name ?? '',
    a: withoutArticle(story?.orgs[0].name ?? ''),
    b: withoutArticle(story?.orgs[1].name ?? ''),
    P: story ? `${story.people[0].title} ${story.people[0].name}` : '',
    Q: story ? `${story.people[1].title} ${story.people[1].name}` : '',
    city: draft.place?.city ?? country,
    country,
    subject: story?.subject ?? '',
    term: story ? pick(rng, story.terms) : '',
    weekday: WEEKDAYS[new Date(draft.publishedMs).getUTCDay()] as string,
    n: String(intBetween(rng, 3, 40)),
    N: thousands(intBetween(rng, 5, 95) * 100),
    pct: String(intBetween(rng, 3, 30)),
    bps: String(intBetween(rng, 1, 6) * 100),
    dec: between(rng, 1, 4.5).toFixed(1),
    mag: between(rng, 4, 5.6).toFixed(1),
  };
}

const PROSE_COUNTRY_NAMES: Readonly<Record<string, string>> = { CD: 'DR Congo', CG: 'Congo-Brazzaville' };
const NEEDS_ARTICLE =
  /^(?:United |Democratic |Republic |Central African|Dominican|Netherlands$|Philippines$|Gambia$|Bahamas$|Maldives$|Comoros$|Seychelles$)|Islands$/;

/** "the Philippines", "DR Congo": country names as a reporter writes them mid-sentence. */
function proseCountryName(code: string): string {
  const name = PROSE_COUNTRY_NAMES[code] ?? countryName(code);
  return NEEDS_ARTICLE.test(name) ? `the ${name}` : name;
}

const lastWord = (name: string): string => name.slice(name.lastIndexOf(' ') + 1);

const compiledTemplates = new Map<string, readonly string[]>();

/** "a {B} c" → ['a ', 'B', ' c']: odd positions name placeholders. Parsed once per template. */
function compile(template: string): readonly string[] {
  let parts = compiledTemplates.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/);
    compiledTemplates.set(template, parts);
  }
  return parts;
}

/** Fills {placeholders}; capitalises the first letter, since a template may open with "the ..." or a role. */
function fill(template: string, values: Readonly<Record<string, string>>): string {
  const parts = compile(template);
  let text = '';
  for (let i = 0; i < parts.length; i++) text += i % 2 === 1 ? (values[parts[i] as string] ?? '') : parts[i];
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const withoutArticle = (name: string): string => name.replace(/^the /, '');

const thousands = (value: number): string => String(value).replace(/\B(?=(\d{3})+$)/g, ',');

/** ISO 8601 without milliseconds; every timestamp here is a whole second. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const NON_ASCII = /[^\x00-\x7f]/;
const SLUG_WORDS = 8;

/** URL slug of at most eight words; empty for scripts without Latin letters. */
function slugify(text: string): string {
  const latin = NON_ASCII.test(text) ? text.normalize('NFD').replace(/\p{M}/gu, '') : text;
  let slug = '';
  let words = 0;
  for (const word of latin.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    slug += words === 0 ? word : `-${word}`;
    if (++words === SLUG_WORDS) break;
  }
  return slug;
}
