/**
 * Countries and places for connector items (rules in ./README.md, "Countries"):
 * 1. the feed's own codes or country names (GDACS lists, ReliefWeb ISO3),
 * 2. else the coordinates, reverse-geocoded offline with @rapideditor/country-coder,
 * 3. else (offshore, or no coordinates) the country named in the feed's place text, or none.
 * Names come from the gazetteer in src/reading (eight languages); free text goes through its
 * reader, which skips names that are also common words or people unless the text confirms them.
 */
import { iso1A2Code } from '@rapideditor/country-coder';
import { isCountryCode } from '../countries';
import { countryOfName, readPlaces, US_STATES, US_TERRITORIES } from '../reading/places';

const fold = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

const US_STATE_CODES = new Set(Object.keys(US_STATES));
const US_STATE_NAMES = new Set(Object.values(US_STATES).map(fold));

const valid = (code: string | null | undefined): string | null => {
  const upper = code?.toUpperCase() ?? null;
  return upper && isCountryCode(upper) ? upper : null;
};

/** ISO 3166-1 alpha-2 for an exact country name as feeds spell it ("Islamic Republic of Iran"). */
export function countryByName(name: string): string | null {
  return valid(countryOfName(name));
}

/** ISO alpha-2 of an alpha-3 code (any case); null for pseudo-codes such as ReliefWeb's "wld". */
export function iso3to2(code: unknown): string | null {
  if (typeof code !== 'string' || !/^[a-z]{3}$/i.test(code.trim())) return null;
  return valid(iso1A2Code(code.trim().toUpperCase()));
}

/** The country whose territory (land or territorial sea) holds the point, or null offshore. */
export function countryAt(lat: number | null | undefined, lng: number | null | undefined): string | null {
  if (lat == null || lng == null) return null;
  // Territory level: Puerto Rico is PR and Réunion RE, as ISO 3166-1 and src/countries.ts have them.
  return valid(iso1A2Code([lng, lat], { level: 'territory' }));
}

/**
 * Countries named in English free text, where it happens first; names that
 * are also common words or people (Chad, Jordan, Georgia, Niger) count only when the text confirms them.
 */
export function countriesInText(text: string): string[] {
  // Connector titles and place strings are English: the English tables, so that an English word
  // that is a country's name elsewhere ("Island", Iceland in German) stays a word.
  const reading = readPlaces(text, '', 'en');
  return [...reading.countries, ...reading.mentioned];
}

/**
 * The country a place string ends with: "35 km NNW of Herāt, Afghanistan" → AF,
 * "Port Townsend, WA" / "Anchorage, Alaska" → US, "Puerto Rico" → PR, "western Afghanistan" → AF.
 * Null when the text names none ("southeast of the Loyalty Islands").
 */
export function countryInPlace(place: string | null | undefined): string | null {
  if (!place) return null;
  const last = place.split(',').pop()?.trim() ?? '';
  if (US_STATE_CODES.has(last)) return 'US';
  if (US_STATE_NAMES.has(fold(last))) return 'US';
  const exact = countryByName(last);
  if (exact) return exact;
  for (const [code, name] of Object.entries(US_TERRITORIES)) if (fold(last).endsWith(fold(name))) return code;
  const named = countriesInText(place.replace(/^(\d+ km [NSEW]{1,3} of|[a-z]+) /, ''));
  // "Poland-Slovakia border region" names two: the place text cannot pick one.
  return named.length === 1 ? (named[0] ?? null) : null;
}

/** The town of "35 km NNW of Herāt, Afghanistan" (Herāt), or null for region-only places. */
export function townInPlace(place: string | null | undefined): string | null {
  const match = /\bof ([^,]+),/.exec(place ?? '') ?? /^([^,]+),/.exec(place ?? '');
  const town = match?.[1]?.trim();
  return town && town.length <= 120 && !/^(the |[a-z])/.test(town) ? town : null;
}

/**
 * One country for a located event, or none. The coordinates decide, except that when the feed's
 * place text names one country and the point disagrees, the place text wins: country-coder's
 * borders run out to sea, so an offshore point "66 km E of Sarangani, Philippines" would
 * otherwise land in Indonesia. No coordinates and no place country → none.
 */
export function countryOfEvent(
  lat: number | null | undefined,
  lng: number | null | undefined,
  place: string | null | undefined,
): string[] {
  const named = countryInPlace(place);
  const code = named ?? countryAt(lat, lng);
  return code ? [code] : [];
}
