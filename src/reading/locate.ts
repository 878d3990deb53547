/** Countries and city of a news item, read by the gazetteer (./places), for the news connectors. */
import world from './data/world.json';
import { readPlaces } from './places';

export interface Located {
  countries: string[];
  city: { name: string; lat: number; lng: number } | null;
}

const COUNTRIES = world.countries as unknown as Record<string, unknown>;
const GENERIC_TLDS = new Set(world.genericTlds);
const LANGUAGE_HOMES = world.languageHomes as Record<string, string>;
const HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/@?#]*@)?([^/:?#]+)/i;

/**
 * The home country of the outlet that published a link, by its country-code domain ("abc.net.au"
 * → AU, "bbc.co.uk" → GB); null for generic domains (.com, .org) and country codes sold for
 * other uses (.io, .tv).
 * @example homeCountry('https://www.stuff.co.nz/national/1') // 'NZ'
 */
function homeCountry(link: string | null | undefined): string | null {
  const host = link ? HOST.exec(link)?.[1]?.toLowerCase() : undefined;
  return host ? domainCountry(host) : null;
}

/** The country of a host name's country-code domain, as `homeCountry` reads it. */
function domainCountry(host: string): string | null {
  const tld = host.slice(host.lastIndexOf('.') + 1).toLowerCase();
  if (tld.length !== 2 || GENERIC_TLDS.has(tld)) return null;
  const code = tld === 'uk' ? 'GB' : tld.toUpperCase();
  return code in COUNTRIES ? code : null;
}

/** The publisher an aggregator appends to a title ("… - NDR.de", "… – e1.ru"): its last part, if short. */
const PUBLISHER = /\s[-–—|]\s([^-–—|]{2,40})$/;
const DOMAIN = /(?:^|[\s(])((?:[\p{L}\d-]+\.)+[a-z]{2})\b/iu;

/**
 * The outlet's country when an aggregator's link (news.google.com) hides it: the publisher's
 * domain at the end of the title ("Lüneburg: Explosion in Wohnhaus - NDR.de" → DE).
 * @example titleCountry('Maltempo, allerta rossa - Fanpage.it') // 'IT'
 */
function titleCountry(title: string): string | null {
  const publisher = PUBLISHER.exec(title.trim())?.[1];
  const host = publisher ? DOMAIN.exec(publisher)?.[1] : undefined;
  return host ? domainCountry(host) : null;
}

/**
 * The countries the text names; when it names none, the outlet's home country (its link's
 * domain, else the publisher's domain an aggregator ends the title with), else the country where
 * the item's language is mostly spoken (Italian → IT; none for English, French, Spanish, Arabic):
 * a story that names no place is a local one ("Teen charged over stabbing at beach").
 */
export function locate(title: string, summary: string, lang: string | null, link?: string | null): Located {
  const places = readPlaces(title, summary, lang);
  if (places.countries.length) return { countries: places.countries.slice(0, 20), city: places.city };
  const home = homeCountry(link) ?? titleCountry(title) ?? (lang ? LANGUAGE_HOMES[lang] : undefined);
  return { countries: home ? [home] : [], city: null };
}
