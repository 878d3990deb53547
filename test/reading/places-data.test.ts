import { describe, expect, it } from 'vitest';
import { COUNTRIES, REGIONS, isCountryCode, regionOf } from '../../src/countries';
import { PLACE_LANGUAGES, countryOfName, englishPlaceNames, readPlaces } from '../../src/reading/places';
import world from '../../src/reading/data/world.json';

const data = (lang: string) => import(`../../src/reading/data/places.${lang}.json`).then((m) => m.default);

describe('the generated gazetteer', () => {
  it('gives every ISO code a name and one of the seven regions (or none for Antarctica)', () => {
    expect(Object.keys(COUNTRIES).length).toBeGreaterThanOrEqual(249);
    for (const [code, country] of Object.entries(COUNTRIES)) {
      expect(code).toMatch(/^[A-Z]{2}$/);
      expect(country.name.length).toBeGreaterThan(1);
      if (country.region !== null) expect(REGIONS).toContain(country.region);
    }
    expect(regionOf('AQ')).toBeNull();
    expect(regionOf('TR')).toBe('Middle East');
    expect(regionOf('RU')).toBe('Europe');
    expect(regionOf('AF')).toBe('South Asia');
    expect(regionOf('SD')).toBe('Sub-Saharan Africa');
    expect(regionOf('MX')).toBe('Latin America');
  });

  it('points every name of every language at a known country or city', async () => {
    const cities = world.cities as unknown as [string, string, number, number, number][];
    for (const [, country, lat, lng] of cities) {
      expect(isCountryCode(country)).toBe(true);
      expect(Math.abs(lat)).toBeLessThanOrEqual(90);
      expect(Math.abs(lng)).toBeLessThanOrEqual(180);
    }
    for (const lang of PLACE_LANGUAGES) {
      const table = await data(lang);
      for (const kind of ['names', 'aliases', 'regions', 'provinces', 'demonyms', 'actors'])
        for (const code of Object.values(table[kind] as Record<string, string>))
          expect(isCountryCode(code), `${lang} ${kind} ${code}`).toBe(true);
      for (const index of Object.values(table.cities as Record<string, number>))
        expect(cities[index]).toBeDefined();
    }
  });

  it('agrees with itself: one code per name across the country table, the reader and the entities', () => {
    expect(countryOfName('Congo')).toBe('CD');
    expect(countryOfName('Republic of the Congo')).toBe('CG');
    expect(readPlaces('Fighting in Congo', '', 'en').countries).toEqual(['CD']);
    const congo = englishPlaceNames().find((p) => p.alias === 'Congo');
    expect(congo?.name).toBe(COUNTRIES.CD!.name);
    expect(countryOfName('Islamic Republic of Iran')).toBe('IR');
    expect(countryOfName('Korea, Republic of')).toBe('KR');
    expect(countryOfName('Atlantis')).toBeNull();
  });

  it("names no subdivision like another country's name, region or people in any language", async () => {
    const fold = (name: string) => name.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
    const named = new Map<string, Set<string>>();
    const tables = await Promise.all(PLACE_LANGUAGES.map(data));
    for (const table of tables)
      for (const kind of ['names', 'aliases', 'regions', 'demonyms'])
        for (const [name, code] of Object.entries(table[kind] as Record<string, string>))
          named.set(fold(name), new Set([...(named.get(fold(name)) ?? []), code]));
    for (const table of tables)
      for (const [name, code] of Object.entries(table.provinces as Record<string, string>)) {
        const others = [...(named.get(fold(name)) ?? [])].filter((other) => other !== code);
        expect(others, `${name} (${code})`).toEqual([]);
      }
    expect(Object.keys((await data('en')).provinces)).toEqual(expect.arrayContaining(['New South Wales']));
  });

  it('keeps every capital with coordinates', () => {
    const capitals = (world.cities as unknown as [string, string, number, number, number][]).filter(
      (c) => c[4] === 1,
    );
    expect(capitals.length).toBeGreaterThan(200);
    expect(capitals.map((c) => c[0])).toEqual(
      expect.arrayContaining(['Damascus', 'Kyiv', 'Khartoum', 'Tehran']),
    );
  });
});
