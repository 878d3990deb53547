import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { listSignals, listSignalsJson, type SignalFilter } from '../../src/signals/query';
import { signalJson } from '../../src/signals/serialize';
import { NASTY } from '../feeds/nasty';
import { fixtureItems } from '../support/fixture';
import { backends } from '../support/harness';

/** Values whose JSON text Postgres and JavaScript write differently, though they mean the same. */
const EDGES = [
  {
    threat_layer: 'disaster',
    significance_score: 0.1,
    signal_valence: 'crisis',
    title: 'Tremor felt on the equator, a hair east of Greenwich',
    content_display: 'Line one\nline two\ttabbed "quoted" back\\slash \u2028 separator 🌋',
    country_codes: ['GH', 'TG'],
    city: null,
    lat: 0.0000001,
    lng: 1e-7,
    published_at: '2026-11-20T10:00:00.123456Z',
    collected_at: '2026-11-20T10:00:01.999999Z',
    source_url: 'https://edges.example.com/tremor',
    source: { name: 'Edge Cases', tier: 'discovered' },
  },
  {
    threat_layer: 'economic',
    significance_score: 10,
    signal_valence: 'update',
    title: 'No place at all',
    content_display: 'A signal with no country, city or coordinates.',
    country_codes: [],
    published_at: '1999-12-31T23:59:59Z',
    source_url: 'https://edges.example.com/nowhere',
    source: { name: 'Edge Cases' },
  },
];

describe.each(backends)('a page of signals serialised by Postgres on $name', (backend) => {
  let database: DatabaseHandle;

  beforeAll(async () => {
    database = await backend.open();
    const items = [...fixtureItems(), ...Object.values(NASTY), ...EDGES];
    expect(await ingestSignals(database.db, items)).toMatchObject({ accepted: items.length, rejected: 0 });
  });
  afterAll(async () => {
    await database?.close();
  });

  it.each<[string, SignalFilter, { limit: number; offset: number }]>([
    ['everything', {}, { limit: 100, offset: 0 }],
    ['a first page', {}, { limit: 3, offset: 0 }],
    ['a middle page', {}, { limit: 4, offset: 5 }],
    ['the last page exactly', {}, { limit: 5, offset: 10 }],
    ['past the end', {}, { limit: 5, offset: 100 }],
    ['a layer and a score', { layers: ['cyber', 'military'], minScore: 5 }, { limit: 2, offset: 0 }],
    ['a search', { search: 'power' }, { limit: 10, offset: 0 }],
    ['a box', { bbox: { minLat: -1, minLng: -1, maxLat: 60, maxLng: 40 } }, { limit: 10, offset: 0 }],
    ['nothing', { country: 'AQ' }, { limit: 10, offset: 0 }],
  ])('equals the rows of listSignals in the public shape: %s', async (_, filter, page) => {
    const rows = await listSignals(database.db, filter, page);
    const built = await listSignalsJson(database.db, filter, page);
    const expected = rows.slice(0, page.limit).map(signalJson);
    const data = JSON.parse(built.data) as unknown[];
    expect(data).toEqual(expected);
    // Same keys in the same order, so the two serialisations read alike too.
    expect(data.map((signal) => JSON.stringify(Object.keys(signal as object)))).toEqual(
      expected.map((signal) => JSON.stringify(Object.keys(signal))),
    );
    expect(built.hasMore).toBe(rows.length > page.limit);
  });
});
