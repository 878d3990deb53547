import { describe, expect, it } from 'vitest';
import { parseDemoTables, type DemoTableFiles } from '../../src/ingest/demo';
import places from '../../src/ingest/demo/places.json';
import sources from '../../src/ingest/demo/sources.json';
import storylines from '../../src/ingest/demo/storylines.json';
import templates from '../../src/ingest/demo/templates.json';

/** The tables as loose JSON, to break on purpose. */
type Loose = Record<keyof DemoTableFiles, any>;

/** The real tables, deep-copied so a test can break one without touching the others. */
const files = (): DemoTableFiles => structuredClone({ places, sources, storylines, templates });

describe('the demo tables (src/ingest/demo/*.json)', () => {
  it('are valid as committed', () => {
    const tables = parseDemoTables(files());
    expect(tables.places.length).toBeGreaterThan(100);
    expect(tables.storylines.length).toBeGreaterThan(20);
    expect(tables.bursts).toHaveLength(4);
  });

  const broken: [string, string, (f: Loose) => void][] = [
    ['a place outside the globe', 'places.json', (f) => (f.places[0].lat = 91)],
    ['a place with an unknown field', 'places.json', (f) => (f.places[0].population = 1)],
    ['an outlet on a real domain', 'sources.json', (f) => (f.sources[0].domain = 'reuters.com')],
    ['an outlet of an unknown tier', 'sources.json', (f) => (f.sources[0].tier = 'gold')],
    [
      'a storyline in a city not in places.json',
      'storylines.json',
      (f) => (f.storylines.storylines[0].city = 'Atlantis'),
    ],
    ['a storyline of an unknown layer', 'storylines.json', (f) => (f.storylines.bursts[0].layer = 'weather')],
    ['a storyline with one person', 'storylines.json', (f) => f.storylines.storylines[0].people.pop()],
    ['a layer without phase templates', 'templates.json', (f) => delete f.templates.phases.cyber],
    ['a phase without titles', 'templates.json', (f) => (f.templates.phases.health.titles.update = [])],
    ['an outlet language without native templates', 'templates.json', (f) => delete f.templates.native.fr],
  ];
  it.each(broken)('refuse %s, naming %s', (_, file, breakIt) => {
    const copy = files();
    breakIt(copy);
    expect(() => parseDemoTables(copy)).toThrow(`src/ingest/demo/${file}`);
  });
});
