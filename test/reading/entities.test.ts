import { describe, expect, it } from 'vitest';
import { COUNTRIES } from '../../src/countries';
import { extractEntities, type ExtractedEntity } from '../../src/reading/entities';
import { readPlaces } from '../../src/reading/places';

const find = (entities: ExtractedEntity[], name: string) => entities.find((e) => e.name === name);
const names = (text: string) => extractEntities(text).map((e) => e.name);

describe('extractEntities', () => {
  it('returns nothing for empty or blank text', () => {
    expect(extractEntities('')).toEqual([]);
    expect(extractEntities('   \n\t ')).toEqual([]);
  });

  it('finds people after titles and drops the title', () => {
    const entities = extractEntities(
      'Defence Minister Rustem Umerov met President Emmanuel Macron in Paris. ' +
        'Gen. Tarek Osman said the siege continued, while Dr. Katrin Vogel warned hospitals were full. ' +
        'NATO Secretary General Mark Rutte and Fed Chair Jerome Powell spoke later.',
    );
    for (const name of [
      'Rustem Umerov',
      'Emmanuel Macron',
      'Tarek Osman',
      'Katrin Vogel',
      'Mark Rutte',
      'Jerome Powell',
    ]) {
      expect(find(entities, name)).toMatchObject({ type: 'person', count: 1 });
    }
    expect(entities.some((e) => /Minister|President|Gen\.|Dr\./.test(e.name))).toBe(false);
    expect(find(entities, 'NATO')?.type).toBe('organization');
    expect(find(entities, 'Federal Reserve')?.type).toBe('organization');
  });

  it('finds people from role words and known first names', () => {
    const entities = extractEntities(
      'Union leader Pieter de Groot said talks had stalled. Opposition leader Farida Rahman called for a recount, ' +
        'and rebel spokesman Patrick Bisimwa denied the claim. Maria Lopez, a local nurse, confirmed the figures.',
    );
    for (const name of ['Pieter de Groot', 'Farida Rahman', 'Patrick Bisimwa', 'Maria Lopez']) {
      expect(find(entities, name)?.type).toBe('person');
    }
  });

  it('finds organisations by suffix and by gazetteer, resolving aliases', () => {
    const entities = extractEntities(
      'The Kenya Defence Forces and the Ministry of Health of Somalia met WHO and IMF officials. ' +
        'Maersk and the Port of Rotterdam Authority blamed the Sinaloa Cartel, the Rapid Support Forces and the BlackHarbor Group. ' +
        'The General Labour Confederation called a strike, and the Ministry of Trade and Industry responded.',
    );
    const orgs = [
      'Kenya Defence Forces',
      'Ministry of Health of Somalia',
      'World Health Organization',
      'International Monetary Fund',
      'Maersk',
      'Port of Rotterdam Authority',
      'Sinaloa Cartel',
      'Rapid Support Forces',
      'BlackHarbor Group',
      'General Labour Confederation',
      'Ministry of Trade and Industry',
    ];
    for (const name of orgs) expect(find(entities, name)?.type, name).toBe('organization');
  });

  it('keeps two organisations joined by "and" apart', () => {
    expect(names('The Sudanese Armed Forces and the Rapid Support Forces traded blame.')).toEqual([
      'Rapid Support Forces',
      'Sudanese Armed Forces',
    ]);
  });

  it('finds locations from the gazetteer, place words and prepositions', () => {
    const entities = extractEntities(
      'Shelling hit Kharkiv and the U.S. embassy in Kyiv. Aid reached Borno State and the Dnipro River basin. ' +
        'Residents fled from Kramatorsk to Sloviansk after strikes near El Fasher in Sudan.',
    );
    for (const name of ['Kharkiv', 'United States', 'Kyiv', 'Borno', 'Kramatorsk', 'El Fasher', 'Sudan']) {
      expect(find(entities, name)?.type, name).toBe('location');
    }
  });

  it('counts repeated mentions and credits a lone surname to the full name', () => {
    const entities = extractEntities(
      'Maersk diverted ships. Maersk said rates would rise. Analysts said Maersk faced delays. ' +
        'Col. Dmitry Volkov said troops advanced. Volkov added that more strikes were planned. Mr. Volkov declined to comment.',
    );
    expect(find(entities, 'Maersk')).toEqual({ name: 'Maersk', type: 'organization', count: 3 });
    expect(find(entities, 'Dmitry Volkov')).toEqual({ name: 'Dmitry Volkov', type: 'person', count: 3 });
    expect(find(entities, 'Volkov')).toBeUndefined();
  });

  it('merges mentions case- and accent-insensitively', () => {
    const entities = extractEntities('Troops entered Bogotá on Monday. Protests spread across Bogota.');
    expect(entities).toEqual([{ name: 'Bogotá', type: 'location', count: 2 }]);
  });

  it('does not extract sentence-initial words, stop words, days or months', () => {
    const text =
      'However, the talks failed. Officials said little. Heavy fighting resumed on Monday. ' +
      'Yesterday, protesters gathered. In March, Striking workers marched. Despite the rain, crowds grew in January. ' +
      'The ministry declined to comment. Police fired tear gas. Residents fled.';
    expect(extractEntities(text)).toEqual([]);
  });

  it('does not confuse common words with acronyms or countries', () => {
    expect(names('They told us who was there and what it meant.')).toEqual([]);
    expect(names('The US and WHO said GDP fell.').sort()).toEqual([
      'United States',
      'World Health Organization',
    ]);
  });

  it('tells a first name from a country of the same spelling', () => {
    const entities = extractEntities('Chad Morgan, a researcher, visited Chad last week.');
    expect(find(entities, 'Chad Morgan')?.type).toBe('person');
    expect(find(entities, 'Chad')?.type).toBe('location');
  });

  it('reads Title Case headlines through the gazetteer only', () => {
    expect(names('Rebels Seize Key Airport Outside Goma As Talks Stall In Nairobi').sort()).toEqual([
      'Goma',
      'Nairobi',
    ]);
  });

  it('reads hyphenated modifiers and possessives', () => {
    const entities = extractEntities(
      "Iran-backed militias fired at NATO's base, and the People's Liberation Army held drills.",
    );
    expect(find(entities, 'Iran')?.type).toBe('location');
    expect(find(entities, 'NATO')?.type).toBe('organization');
    expect(find(entities, "People's Liberation Army")?.type).toBe('organization');
  });

  it('does not glue Latin names to Japanese text', () => {
    expect(names('Office of Civil Defenseは自制を呼びかけた。')).toEqual(['Office of Civil Defense']);
  });

  it('sorts by count then name and caps the list at 20', () => {
    const cities = [
      'Lagos',
      'Accra',
      'Dakar',
      'Abuja',
      'Nairobi',
      'Kampala',
      'Kigali',
      'Goma',
      'Juba',
      'Luanda',
    ];
    const more = [
      'Lusaka',
      'Harare',
      'Maputo',
      'Durban',
      'Kinshasa',
      'Bamako',
      'Niamey',
      'Conakry',
      'Freetown',
      'Monrovia',
    ];
    const text = `Flights left ${[...cities, ...more, 'Tunis', 'Cairo'].join(', ')}. Lagos and Accra were busiest. Lagos reopened.`;
    const entities = extractEntities(text);
    expect(entities).toHaveLength(20);
    expect(entities.slice(0, 2)).toEqual([
      { name: 'Lagos', type: 'location', count: 3 },
      { name: 'Accra', type: 'location', count: 2 },
    ]);
    const rest = entities.slice(2).map((e) => e.name);
    expect(rest).toEqual([...rest].sort());
  });

  // Its speed is measured by `npm run bench` (bench/units.ts), not asserted here.
  it('is deterministic', () => {
    const paragraph =
      'Gen. Tarek Osman said the Rapid Support Forces shelled El Fasher overnight, while the World Health Organization ' +
      'warned of cholera in Port Sudan. Maersk diverted vessels from the Red Sea, and Finance Minister Chinwe Okafor met ' +
      'IMF staff in Abuja on Tuesday. Osman added that talks in Jeddah had stalled.';
    const first = extractEntities(paragraph);
    for (let i = 0; i < 20; i++) expect(extractEntities(paragraph)).toEqual(first);
    expect(find(first, 'Tarek Osman')?.count).toBe(2);
  });

  it('files a country under the name the country table gives the code the place reader reads', () => {
    const text =
      'Rebels advanced in the DRC on Monday. Fighting in Congo displaced thousands, officials in Britain said.';
    const locations = extractEntities(text)
      .filter((e) => e.type === 'location')
      .map((e) => e.name);
    const reading = readPlaces(text, '', 'en');
    const codes = [...reading.countries, ...reading.mentioned];
    expect(codes).toEqual(['CD', 'GB']);
    expect(locations.sort()).toEqual(codes.map((code) => COUNTRIES[code]!.name).sort());
    expect(find(extractEntities(text), COUNTRIES.CD!.name)?.count).toBe(2);
  });

  it('finds cities and regions from the gazetteer under one spelling', () => {
    expect(names('Drones hit Kiev and Kyiv overnight')).toEqual(['Kyiv']);
    expect(find(extractEntities('Shipping resumed in the Red Sea near Hodeidah.'), 'Red Sea')?.type).toBe(
      'location',
    );
  });
});
