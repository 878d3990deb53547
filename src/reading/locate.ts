/** Countries and city of a news item, read by the gazetteer (./places), for the news connectors. */
import { readPlaces } from './places';

export interface Located {
  countries: string[];
  city: { name: string; lat: number; lng: number } | null;
}

export function locate(title: string, summary: string, lang: string | null): Located {
  const places = readPlaces(title, summary, lang);
  return { countries: places.countries.slice(0, 20), city: places.city };
}
