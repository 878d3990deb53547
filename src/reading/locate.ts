/** Countries and city of a news item, read by the gazetteer (./places), for the news connectors. */
import world from './data/world.json';
import { readPlaces } from './places';

export interface Located {
  countries: string[];
  city: { name: string; lat: number; lng: number } | null;
}

const COUNTRIES = world.countries as unknown as Record<string, unknown>;
const GENERIC_TLDS = new Set(world.genericTlds);
const HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/@?#]*@)?([^/:?#]+)/i;

/**
 * The home country of the outlet that published a link, by its country-code domain ("abc.net.au"
 * → AU, "bbc.co.uk" → GB); null for generic domains (.com, .org) and country codes sold for
 * other uses (.io, .tv).
 * @example homeCountry('https://www.stuff.co.nz/national/1') // 'NZ'
 */
function homeCountry(link: string | null | undefined): string | null {
  const host = link ? HOST.exec(link)?.[1]?.toLowerCase() : undefined;
  const tld = host?.slice(host.lastIndexOf('.') + 1);
  if (!tld || tld.length !== 2 || GENERIC_TLDS.has(tld)) return null;
  const code = tld === 'uk' ? 'GB' : tld.toUpperCase();
  return code in COUNTRIES ? code : null;
}

/**
 * The countries the text names; when it names none, the outlet's home country: a national
 * outlet's story that names no place is a local one ("Teen charged over stabbing at beach").
 */
export function locate(title: string, summary: string, lang: string | null, link?: string | null): Located {
  const places = readPlaces(title, summary, lang);
  if (places.countries.length) return { countries: places.countries.slice(0, 20), city: places.city };
  const home = homeCountry(link);
  return { countries: home ? [home] : [], city: null };
}
