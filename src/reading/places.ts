/**
 * Where a news item happens, read from its title and summary with the generated gazetteer in
 * ./data (see docs/places.md for the rules and data/SOURCES.md for the sources).
 *
 * Matching is one pass over the words: at each word the longest name (up to MAX_NAME_WORDS words)
 * is looked up in a Map of folded keys, then of inflection-free keys for languages that inflect
 * names (ru, uk: case endings; de: genitive and adjectives; ar: clitics and the article). No
 * per-name pattern ever scans the text, so the cost is linear in its length.
 */
import ar from './data/places.ar.json';
import de from './data/places.de.json';
import en from './data/places.en.json';
import es from './data/places.es.json';
import fr from './data/places.fr.json';
import pt from './data/places.pt.json';
import ru from './data/places.ru.json';
import uk from './data/places.uk.json';
import nl from './data/places.nl.json';
import it from './data/places.it.json';
import world from './data/world.json';
import people from './data/en/entities.json';
import { arabicVariants, fold, latinSkeleton, stem, words, type StemRule, type Word } from './places-text';

type PlaceRole = 'where' | 'actor' | 'mentioned';
type PlaceKind = 'country' | 'alias' | 'region' | 'demonym' | 'capital' | 'city' | 'actor';
interface PlaceMatch {
  text: string;
  code: string;
  kind: PlaceKind;
  role: PlaceRole;
  /** Offset in `title + "\n" + summary`. */
  start: number;
}
interface PlaceCity {
  name: string;
  country: string;
  lat: number;
  lng: number;
}
export interface PlaceReading {
  /** ISO-2 codes an analyst would file the item under: the country where it happens first, then the ones kept as direct subjects. */
  countries: string[];
  where: string | null;
  /** Named but not kept. */
  mentioned: string[];
  city: PlaceCity | null;
  matches: PlaceMatch[];
}

interface LanguageData {
  stem: string;
  where: string[];
  speak: string[];
  cue: string[];
  features: string[];
  names: Record<string, string>;
  aliases: Record<string, string>;
  regions: Record<string, string>;
  /** First-level subdivisions (CLDR): states, provinces, oblasts. */
  provinces: Record<string, string>;
  demonyms: Record<string, string>;
  cities: Record<string, number>;
  actors: Record<string, string>;
}

export const PLACE_LANGUAGES = ['en', 'fr', 'es', 'de', 'pt', 'ru', 'uk', 'ar', 'nl', 'it'] as const;
const DATA: Record<string, LanguageData> = { en, fr, es, de, pt, ru, uk, ar, nl, it };
const CITIES = world.cities as unknown as [string, string, number, number, number][];

/** No name in the data that matters is longer; bounds the look-ahead at each word. */
const MAX_NAME_WORDS = 6;
/** Words an item may hold before the rest is ignored: keeps hostile input cheap. */
const MAX_WORDS = 2000;

interface Entry {
  code: string;
  kind: PlaceKind;
  city: number;
  words: number;
  /** The source spelling starts upper case: the text must too ("US" is a name, "us" is not). */
  cap: boolean;
  /** All upper case in the source ("US", "IDF"): the text must match exactly. */
  acronym: string | null;
  /** Needs a scene word before it or another mention of its country (Chad, Jordan, Nice). */
  cue: boolean;
  /** Also a US state (Georgia): only another mention of the country decides, not a scene word. */
  confirm: boolean;
}

interface Index {
  exact: Map<string, Entry>;
  stemmed: Map<string, Entry>;
  /** Every proper word prefix of a name ("new" for "new york"): where an n-gram may still grow. */
  prefixes: Set<string>;
  stemPrefixes: Set<string>;
  rules: Set<StemRule>;
  primary: string;
  where: Set<string>;
  speak: Set<string>;
  /** Slavic languages: cities of Cyrillic-script countries by the Latin skeleton of their GeoNames name. */
  romanised: Map<string, Entry> | null;
}

const KIND_RANK: Record<PlaceKind, number> = {
  country: 0,
  alias: 1,
  region: 2,
  capital: 2,
  city: 2,
  demonym: 3,
  actor: 4,
};

const indexes = new Map<string, Index>();
let stateKeys: Set<string> | undefined;
const usStateKeys = (): Set<string> => (stateKeys ??= new Set(Object.values(world.usStates).map(fold)));

/** Built on first use per language and kept: immutable, so safe to share across requests. */
function indexFor(lang: string | null): Index {
  const id = lang && DATA[lang] ? lang : '*';
  let index = indexes.get(id);
  if (!index) {
    const langs = id === '*' ? [...PLACE_LANGUAGES] : id === 'en' ? ['en'] : [id, 'en'];
    index = buildIndex(langs);
    indexes.set(id, index);
  }
  return index;
}

function buildIndex(langs: string[]): Index {
  const index: Index = {
    exact: new Map(),
    stemmed: new Map(),
    prefixes: new Set(),
    stemPrefixes: new Set(),
    rules: new Set(),
    primary: langs.length > 2 ? '*' : langs[0]!,
    where: new Set(),
    speak: new Set(),
    romanised: null,
  };
  const ambiguousStems = new Set<string>();
  for (const lang of langs) {
    const data = DATA[lang]!;
    const rule = data.stem as StemRule;
    index.rules.add(rule);
    const primary = lang === langs[0];
    if (primary || langs.length > 2) {
      for (const w of data.where) index.where.add(fold(w));
      for (const w of data.speak) index.speak.add(fold(w));
    }
    const cue = new Set(data.cue.map(fold));
    const add = (display: string, kind: PlaceKind, code: string, city = -1): void => {
      const tokens = words(display);
      if (!tokens.length || tokens.length > MAX_NAME_WORDS) return;
      const key = tokens.map((t) => t.key).join(' ');
      const entry: Entry = {
        code,
        kind,
        city,
        words: tokens.length,
        cap: /^\p{Lu}/u.test(display),
        acronym: /^[\p{Lu}.]{2,5}$/u.test(display) ? display : null,
        cue: cue.has(key),
        confirm: cue.has(key) && code !== 'US' && usStateKeys().has(key),
      };
      put(index.exact, key, entry);
      for (let n = 1; n < tokens.length; n++)
        index.prefixes.add(
          tokens
            .slice(0, n)
            .map((t) => t.key)
            .join(' '),
        );
      if (rule === 'arabic')
        for (const variant of arabicVariants(tokens[0]!.key).slice(1)) {
          const rest = tokens.slice(1).map((t) => ` ${t.key}`);
          put(index.exact, variant + rest.join(''), entry);
          for (let n = 1; n < tokens.length; n++) index.prefixes.add(variant + rest.slice(0, n - 1).join(''));
        }
      if (rule === 'slavic' || rule === 'de') {
        // A name is its own stem too: "Харьков" must meet "Харькову" (→ "харьков") though the
        // rule would cut the name itself to "харьк".
        const stems = tokens.map((t) => stem(t.key, rule));
        for (let n = 1; n < tokens.length; n++) index.stemPrefixes.add(stems.slice(0, n).join(' '));
        const full = stems.join(' ');
        // Ukrainian "і" of a closed last syllable opens in other cases (Харків → Харкова), and a
        // case form alone need not show a Ukrainian letter for `stem` to know it. The other way,
        // a name in "-ова" has a locative in "-ові" that `stem` reads as such a syllable
        // ("Молдові" → "молдів"), so the name answers to that form too.
        const opened =
          rule !== 'slavic'
            ? []
            : /ів$/.test(full)
              ? [full.slice(0, -2) + 'ов', full.slice(0, -2) + 'ев']
              : /[оеє]в$/.test(full)
                ? [full.slice(0, -2) + 'ів']
                : [];
        for (const stemKey of new Set([full, key, ...opened])) {
          const seen = index.stemmed.get(stemKey);
          if (seen && seen.code !== code) ambiguousStems.add(stemKey);
          else put(index.stemmed, stemKey, entry);
        }
      }
      if (tokens.length === 1 && (kind === 'country' || kind === 'alias'))
        addDemonyms(display, rule, code, add);
      // German names a country's people with "-er"/"-erin": "Iraner", "Iranerin", "Iraker". (City
      // adjectives, "Kiewer", would need the outlets' own names kept apart: "Frankfurter Allgemeine".)
      if (
        rule === 'de' &&
        tokens.length === 1 &&
        (kind === 'country' || kind === 'alias') &&
        /[^e]$/.test(key)
      )
        for (const ending of ['er', 'erin', 'erinnen']) add(key + ending, 'demonym', code);
    };
    for (const [name, code] of Object.entries(data.names)) add(name, 'country', code);
    for (const [name, code] of Object.entries(data.aliases)) add(name, 'alias', code);
    for (const [name, code] of Object.entries(data.regions)) add(name, 'alias', code);
    // Provinces of the text's own language only: "Norte", "Centrale" are words elsewhere.
    if (primary && langs.length <= 2)
      for (const [name, code] of Object.entries(data.provinces)) add(name, 'region', code);
    for (const [name, code] of Object.entries(data.demonyms)) add(name, 'demonym', code);
    for (const [name, i] of Object.entries(data.cities)) {
      const city = CITIES[i];
      if (city) add(name, city[4] ? 'capital' : 'city', city[1], i);
    }
    // English city names are the rows' own (GeoNames) names, most populous first.
    if (lang === 'en') CITIES.forEach((city, i) => add(city[0], city[4] ? 'capital' : 'city', city[1], i));
    for (const [name, code] of Object.entries(data.actors)) add(name, 'actor', code);
  }
  for (const key of ambiguousStems) index.stemmed.delete(key);
  if (index.rules.has('slavic')) index.romanised = romanisedCities();
  return index;
}

/** Keeps the stronger of two entries for one key: a country name beats a city of the same name. */
function put(map: Map<string, Entry>, key: string, entry: Entry): void {
  const seen = map.get(key);
  if (!seen || KIND_RANK[entry.kind] < KIND_RANK[seen.kind]) map.set(key, entry);
}

/**
 * Adjectives made from a country name by the language's regular rule, where no open source
 * lists them: German "-isch" ("Iran" → "iranisch", "Syrien" → "syrisch", "Russland" → "russisch"),
 * Arabic nisba "-ي" ("سوريا" → "سوري", "السودان" → "سوداني"). Slavic adjectives need none: their
 * stem is the name's ("сирийский" and "Сирия" both reduce to "сири").
 */
function addDemonyms(
  name: string,
  rule: StemRule,
  code: string,
  add: (d: string, k: PlaceKind, c: string) => void,
): void {
  const key = fold(name);
  if (rule === 'de' && key.length >= 4) {
    const base = key.endsWith('ien')
      ? key.slice(0, -2) + 'sch'
      : key.endsWith('land')
        ? key.slice(0, -4) + 'isch'
        : /[ae]$/.test(key)
          ? key.slice(0, -1) + 'isch'
          : key + 'isch';
    add(base, 'demonym', code);
  }
  if (rule === 'arabic') {
    let base = key.startsWith('ال') ? key.slice(2) : key;
    base = base.replace(/[اه]$/, '');
    if (base.length < 3) return;
    const nisba = base.endsWith('ي') ? base : base + 'ي';
    for (const form of [nisba, nisba + 'ه', nisba + 'ون', nisba + 'ين']) add(form, 'demonym', code);
  }
}

interface Found {
  entry: Entry;
  text: string;
  from: number;
  to: number;
  /** Index of the first word in the part (title or summary). */
  part: 0 | 1;
  start: number;
  /** After a scene word ("in", "strikes on"), or Arabic "بـ" (in) glued to the name. */
  cued: boolean;
  speaker: boolean;
  /** "Iran-backed", "Liberian-flagged", "Indian-origin": describes something else, is not a subject. */
  modifier: boolean;
}

/** Second halves of English hyphenated modifiers made from a place name. */
const HYPHEN_MODIFIERS = new Set(
  'backed led based linked made born owned run controlled funded allied aligned held affiliated sponsored bound flagged registered origin born-and-raised'.split(
    ' ',
  ),
);

const SKIP_BEFORE = new Set(
  [
    'the',
    'a',
    'an',
    'le',
    'la',
    'les',
    "l'",
    'el',
    'los',
    'las',
    'der',
    'die',
    'das',
    'dem',
    'den',
    'des',
    'o',
    'os',
    'as',
    'do',
    'da',
    'city',
    'capital',
    'northern',
    'southern',
    'eastern',
    'western',
    'central',
    'north',
    'south',
    'east',
    'west',
    'occupied',
    'war-torn',
    'greater',
    'grand',
  ].map(fold),
);
/** Russian and Ukrainian compass adjectives in any case ("Восточном Иерусалиме", "Східній Україні"). */
const SLAVIC_COMPASS = /^(?:восточн|западн|северн|южн|центральн|східн|західн|північн|південн|центральн)/;

const CYRILLIC = /[\u0400-\u04ff]/;

/** Finds names left to right, longest first; an n-gram grows only while some name starts with it. */
function matchPart(list: Word[], part: 0 | 1, offset: number, index: Index, out: Found[]): void {
  const slavic = index.rules.has('slavic');
  // German endings are cut only in German text: elsewhere "Islands" would become "Island" (Iceland).
  const german = index.primary === 'de';
  const arabic = index.rules.has('arabic');
  for (let i = 0; i < list.length;) {
    const first = list[i]!;
    let best: { entry: Entry; length: number } | null = null;
    let key = first.key;
    let firstStem = first.key;
    if ((arabic || german) && !index.exact.has(key) && !index.prefixes.has(key)) {
      for (const variant of arabic ? arabicVariants(key) : germanVariants(key)) {
        if (index.exact.has(variant) || index.prefixes.has(variant)) {
          key = variant;
          break;
        }
      }
    }
    if (slavic && CYRILLIC.test(first.key)) firstStem = stem(first.key, 'slavic');
    else if (german) firstStem = stem(key, 'de');
    let stemKey = firstStem;
    const stemming = firstStem !== first.key || index.stemmed.has(stemKey) || index.stemPrefixes.has(stemKey);
    for (let n = 1; n <= MAX_NAME_WORDS && i + n <= list.length; n++) {
      const word = list[i + n - 1]!;
      if (n > 1) {
        key = `${key} ${word.key}`;
        if (stemming) {
          const s =
            slavic && CYRILLIC.test(word.key)
              ? stem(word.key, 'slavic')
              : german
                ? stem(word.key, 'de')
                : word.key;
          stemKey = `${stemKey} ${s}`;
        }
      }
      const exact = index.exact.get(key);
      const entry =
        exact && exact.words === n && accepts(exact, first, false, firstStem)
          ? exact
          : stemming
            ? stemmedEntry(index.stemmed.get(stemKey), n, first, firstStem)
            : null;
      if (entry) best = { entry, length: n };
      if (word.breakAfter) break;
      if (!index.prefixes.has(key) && !(stemming && index.stemPrefixes.has(stemKey))) break;
    }
    if (!best && index.romanised && first.cap && CYRILLIC.test(first.key)) {
      const entry = romanisedEntry(index.romanised, first, firstStem);
      if (entry) best = { entry, length: 1 };
    }
    if (!best) {
      i++;
      continue;
    }
    const from = i;
    const to = i + best.length;
    const gluedIn = arabic && key !== first.key && /^[وف]?ب/.test(first.key);
    let before = from - 1;
    // An article is skipped ("in the Gaza Strip"), a scene word never: French "à" folds to "a".
    while (
      before >= 0 &&
      SKIP_BEFORE.has(list[before]!.key) &&
      !index.where.has(list[before]!.key) &&
      !list[before]!.breakAfter
    )
      before--;
    const cued = gluedIn || (before >= 0 && !list[before]!.breakAfter && index.where.has(list[before]!.key));
    let speaker = false;
    for (let j = to; j < Math.min(list.length, to + 3); j++) {
      if (index.speak.has(list[j]!.key)) speaker = true;
      if (list[j]!.breakAfter || speaker) break;
    }
    const last = list[to - 1]!;
    const modifier = last.hyphenAfter && HYPHEN_MODIFIERS.has(list[to]?.key ?? '');
    out.push({
      modifier,
      entry: best.entry,
      text: list
        .slice(from, to)
        .map((w) => w.text)
        .join(' '),
      from,
      to,
      part,
      start: offset + first.start,
      cued,
      speaker: speaker && !cued,
    });
    i = to;
  }
}

/** Countries whose place names GeoNames romanises from Cyrillic. */
const CYRILLIC_COUNTRIES = new Set(['RU', 'UA', 'BY', 'KZ', 'KG']);
/** Shorter skeletons meet too many other words. */
const MIN_SKELETON = 4;

/** One-word cities of Cyrillic-script countries by skeleton; a skeleton two cities share is dropped. */
function romanisedCities(): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const shared = new Set<string>();
  CITIES.forEach(([name, country, , , capital], i) => {
    if (!CYRILLIC_COUNTRIES.has(country) || /[\s-]/.test(name)) return;
    const key = latinSkeleton(name);
    if (key.length < MIN_SKELETON) return;
    const seen = out.get(key);
    if (seen && seen.code !== country) shared.add(key);
    else if (!seen) {
      const kind = capital ? 'capital' : 'city';
      out.set(key, {
        code: country,
        kind,
        city: i,
        words: 1,
        cap: true,
        acronym: null,
        cue: false,
        confirm: false,
      });
    }
  });
  // Oblasts, krais and republics by their English (CLDR) name's first word: "Amur" meets
  // "Амурской области", "Ingushetia" "Ингушетии". A city of the same skeleton stays.
  for (const [name, code] of Object.entries(en.provinces)) {
    const tokens = words(name);
    if (!CYRILLIC_COUNTRIES.has(code) || tokens.length > 2) continue;
    if (tokens.length === 2 && !PROVINCE_WORDS.has(tokens[1]!.key)) continue;
    const key = latinSkeleton(tokens[0]!.text);
    if (key.length < MIN_SKELETON || out.has(key) || shared.has(key)) continue;
    out.set(key, {
      code,
      kind: 'region',
      city: -1,
      words: 1,
      cap: true,
      acronym: null,
      cue: false,
      confirm: false,
    });
  }
  for (const key of shared) out.delete(key);
  return out;
}
/** The word after an oblast's own name in its English name ("Amur Oblast", "Perm Krai"). */
const PROVINCE_WORDS = new Set(['oblast', 'krai', 'okrug', 'region', 'province', 'oblysy', 'republic']);

/**
 * A capitalised Cyrillic word that no name in the language's table matched, met through its
 * Latin skeleton: the word as written, or its stem with the nominative ending it lost
 * ("Махачкале" → "махачкал" + a) or the adjective's "-sk" ("Смоленской" → "смолен" + sk).
 */
function romanisedEntry(romanised: Map<string, Entry>, first: Word, firstStem: string): Entry | null {
  const stemText = first.text.slice(0, firstStem.length);
  const whole = latinSkeleton(first.text);
  const root = latinSkeleton(stemText);
  if (root.length < MIN_SKELETON) return romanised.get(whole) ?? null;
  for (const key of [whole, root, root + 'a', root + 'sk', root + 'i']) {
    const entry = romanised.get(key);
    if (entry) return entry;
  }
  return null;
}

/** German compounds of a compass point and a name: "Nordsyrien" → "syrien", "Ostukraine" → "ukraine". */
const GERMAN_COMPASS = /^(?:nord|sud|ost|west|zentral|mittel)(?:ost|west)?(.{4,})$/;
const germanVariants = (key: string): string[] => {
  const rest = GERMAN_COMPASS.exec(key)?.[1];
  return rest ? [key, rest] : [key];
};

/** Case rules: "US" only as written; a capitalised name only capitalised, except demonyms. */
function accepts(entry: Entry, first: Word, stemmed: boolean, firstStem: string): boolean {
  if (entry.acronym && first.text !== entry.acronym) return false;
  if (entry.cap && !first.cap && entry.kind !== 'demonym')
    return stemmed && (entry.kind === 'country' || entry.kind === 'alias') && firstStem.length >= 4;
  // A lower-case word met through a three-letter stem is too often another word ("дате" ≠ датский).
  return !(stemmed && !first.cap && firstStem.length < 4);
}

/** A lower-case inflected country name is its adjective ("сирийских"): a demonym, if its stem is real. */
function stemmedEntry(entry: Entry | undefined, n: number, first: Word, firstStem: string): Entry | null {
  if (!entry || entry.words !== n || !accepts(entry, first, true, firstStem)) return null;
  return entry.cap && !first.cap && entry.kind !== 'demonym' ? { ...entry, kind: 'demonym' } : entry;
}

/** Headline style: most longer words capitalised, so capitals say nothing about names. */
function titleCase(list: Word[]): boolean {
  let long = 0;
  let capitalised = 0;
  for (const w of list) {
    if (w.text.length < 4) continue;
    long++;
    if (w.cap) capitalised++;
  }
  return long > 0 && capitalised / long > 0.6;
}

/** "Chad Smith", "Michael Jordan": a name glued to other capitalised words is a person's. */
function inPersonName(list: Word[], f: Found): boolean {
  const next = list[f.to];
  const previous = list[f.from - 1];
  const capitalisedNeighbour = (w: Word | undefined, gapBreaks: boolean): boolean =>
    !!w && w.cap && /^\p{Lu}\p{Ll}/u.test(w.text) && !gapBreaks;
  return (
    capitalisedNeighbour(next, list[f.to - 1]!.breakAfter) ||
    capitalisedNeighbour(previous, !!previous?.breakAfter)
  );
}

/** Given names the entity extractor knows (data/en/entities.json): "Jordan", "Chad", "Mike". */
const GIVEN_NAMES: ReadonlySet<string> = new Set(people.firstNames.map(fold));

/**
 * "Jordan Henderson", "coach Mike Henderson": a one-word city right after a capitalised word that is
 * no sure place is a surname. That word counts when it is a known given name, or, where capitals
 * carry meaning (`capitalsMeanNames`), when it is capitalised inside a sentence; a capital that
 * only starts a sentence says nothing ("After Henderson shooting"). A scene word before the city
 * ("in Henderson") or a place word ("North Henderson") makes it a place again.
 */
function surnameCity(list: Word[], f: Found, placeEnds: Set<number>, capitalsMeanNames: boolean): boolean {
  if (f.cued || f.to - f.from !== 1) return false;
  const previous = list[f.from - 1];
  if (
    !previous ||
    previous.breakAfter ||
    previous.commaAfter ||
    previous.hyphenAfter ||
    !/^\p{Lu}\p{Ll}/u.test(previous.text)
  )
    return false;
  if (placeEnds.has(f.from - 1) || SKIP_BEFORE.has(previous.key) || SLAVIC_COMPASS.test(previous.key))
    return false;
  if (GIVEN_NAMES.has(previous.key)) return true;
  // Russian and Ukrainian place a town's district in capitalised adjectives ("Куп'янськ
  // Харківської області"): two capitalised words there are two places.
  if (CYRILLIC.test(list[f.from]!.key)) return false;
  const before = list[f.from - 2];
  const sentenceStart = !before || before.breakAfter;
  return capitalsMeanNames && !sentenceStart;
}

/**
 * Reads the places of a news item.
 * @example readPlaces('Suicide bombing at Damascus church kills 25', '', 'en').countries // ['SY']
 */
export function readPlaces(title: string, summary: string, lang: string | null): PlaceReading {
  const index = indexFor(lang ? lang.slice(0, 2).toLowerCase() : null);
  const titleWords = words(title).slice(0, MAX_WORDS);
  const summaryWords = words(summary).slice(0, MAX_WORDS);
  const found: Found[] = [];
  matchPart(titleWords, 0, 0, index, found);
  const titleCount = found.length;
  matchPart(summaryWords, 1, title.length + 1, index, found);

  // "Paris, Texas": a city followed by ", <state or country>" of another country is not that city.
  const dropped = new Set<Found>();
  for (let k = 0; k + 1 < found.length; k++) {
    const a = found[k]!;
    const b = found[k + 1]!;
    const list = a.part === 0 ? titleWords : summaryWords;
    if (
      (a.entry.kind === 'city' || a.entry.kind === 'capital') &&
      b.part === a.part &&
      b.from === a.to &&
      list[a.to - 1]!.commaAfter &&
      b.entry.code !== a.entry.code &&
      (b.entry.kind === 'alias' || b.entry.kind === 'country')
    )
      dropped.add(a);
  }
  // "Kobe Bryant", "Leon Windscheid": a one-word city glued to a capitalised word that is no place
  // is a person's name, where capitals carry meaning (not in German, nor in Title Case headlines).
  if (index.primary !== 'de')
    for (const f of found) {
      if ((f.entry.kind !== 'city' && f.entry.kind !== 'region') || f.to - f.from !== 1) continue;
      const list = f.part === 0 ? titleWords : summaryWords;
      const next = list[f.to];
      const glued =
        next &&
        !list[f.from]!.breakAfter &&
        /^\p{Lu}\p{Ll}/u.test(next.text) &&
        !found.some((g) => g.part === f.part && g.from === f.to);
      if (glued && !titleCase(list)) dropped.add(f);
    }
  // Where sure places end (their last word), per part: a word there is a place, not a given name.
  const placeEnds: [Set<number>, Set<number>] = [new Set(), new Set()];
  for (const f of found) if (!f.entry.cue && !dropped.has(f)) placeEnds[f.part].add(f.to - 1);
  for (const f of found) {
    if (f.entry.kind !== 'city' && f.entry.kind !== 'region') continue;
    const list = f.part === 0 ? titleWords : summaryWords;
    const capitalsMeanNames = index.primary !== 'de' && !titleCase(list);
    if (surnameCity(list, f, placeEnds[f.part], capitalsMeanNames)) dropped.add(f);
  }
  const sure = new Set(found.filter((f) => !f.entry.cue && !dropped.has(f)).map((f) => f.entry.code));
  const kept = found.filter((f) => {
    if (dropped.has(f)) return false;
    if (!f.entry.cue) return true;
    const list = f.part === 0 ? titleWords : summaryWords;
    if (!titleCase(list) && inPersonName(list, f)) return false;
    return (f.cued && !f.entry.confirm) || sure.has(f.entry.code);
  });

  // A place that only describes something ("Iran-backed militia") is kept only if nothing else is named.
  const subjects = (list: Found[]) =>
    list.some((f) => !f.modifier) ? list.filter((f) => !f.modifier) : list;
  const title0 = subjects(kept.filter((f) => f.part === 0));
  const summary0 = subjects(kept.filter((f) => f.part === 1));
  const pickWhere = (list: Found[]): Found | undefined => {
    const placeKinds = (f: Found) => f.entry.kind !== 'actor' && f.entry.kind !== 'demonym';
    return (
      list.find((f) => f.cued && placeKinds(f)) ??
      list.find((f) => (f.entry.kind === 'city' || f.entry.kind === 'capital') && !f.speaker) ??
      (new Set(list.map((f) => f.entry.code)).size === 1 ? list[0] : undefined) ??
      list.find((f) => !f.speaker && placeKinds(f)) ??
      list.find((f) => !f.speaker)
    );
  };
  const whereFound = pickWhere(title0) ?? (title0.length ? undefined : pickWhere(summary0));
  const where = whereFound?.entry.code ?? null;

  const countries: string[] = [];
  if (where) countries.push(where);
  const keepFrom = title0.length ? title0 : summary0.filter((f) => f === whereFound);
  for (const f of keepFrom) if (!countries.includes(f.entry.code)) countries.push(f.entry.code);

  const mentioned: string[] = [];
  for (const f of kept)
    if (!countries.includes(f.entry.code) && !mentioned.includes(f.entry.code)) mentioned.push(f.entry.code);

  const matches: PlaceMatch[] = kept.map((f) => ({
    text: f.text,
    code: f.entry.code,
    kind: f.entry.kind,
    role:
      f === whereFound || (f.entry.code === where && f.cued)
        ? 'where'
        : countries.includes(f.entry.code)
          ? 'actor'
          : 'mentioned',
    start: f.start,
  }));

  const cityFound =
    (whereFound && whereFound.entry.city >= 0 ? whereFound : undefined) ??
    kept.find((f) => f.entry.city >= 0 && countries.includes(f.entry.code));
  const row = cityFound ? CITIES[cityFound.entry.city] : undefined;
  const city = row ? { name: row[0], country: row[1], lat: row[2], lng: row[3] } : null;
  void titleCount;
  return { countries, where, mentioned, city, matches };
}

/**
 * The country a whole string names, in any of the gazetteer's languages: a feed's own country field
 * ("Islamic Republic of Iran", "Türkiye", "Korea, Republic of", "Guam"). Null for anything else.
 */
export function countryOfName(name: string): string | null {
  const key = words(name)
    .map((w) => w.key)
    .join(' ');
  const entry = indexFor(null).exact.get(key);
  return entry && (entry.kind === 'country' || entry.kind === 'alias') ? entry.code : null;
}

/** A name the entity extractor may find, with the name it files it under. */
export interface PlaceName {
  alias: string;
  name: string;
}

/**
 * English place names for entity extraction: every country name and alias (filed under the
 * country's English short name), every kept city and the seas and regions in the data.
 */
export function englishPlaceNames(): PlaceName[] {
  const out: PlaceName[] = [];
  const countryName = (code: string) => WORLD_COUNTRIES[code]?.[0] ?? code;
  for (const [alias, code] of Object.entries(en.names)) out.push({ alias, name: countryName(code) });
  for (const [alias, code] of Object.entries(en.aliases)) out.push({ alias, name: countryName(code) });
  for (const region of Object.keys(en.regions)) out.push({ alias: region, name: region });
  // Cities that are also common words or names (Nice, Reading, Mobile) are left to the context rules.
  const ambiguous = new Set(en.cue.map(fold));
  for (const [alias, i] of [
    ...Object.entries(en.cities),
    ...CITIES.map((city, i) => [city[0], i] as const),
  ]) {
    const city = CITIES[i];
    if (city && !ambiguous.has(fold(alias))) out.push({ alias, name: city[0] });
  }
  for (const feature of en.features) out.push({ alias: feature, name: feature });
  return out;
}

/** English short name and region of every ISO 3166-1 alpha-2 code, from the gazetteer. */
const WORLD_COUNTRIES = world.countries as unknown as Record<string, [string, string | null]>;
export const US_STATES = world.usStates as Record<string, string>;
export const US_TERRITORIES = world.usTerritories as Record<string, string>;
