import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { signals } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { parse } from 'csv-parse/sync';
import { CSV_COLUMNS, signalsCsv } from '../../src/signals/csv';
import { listSignalPage, signalPageStatement } from '../../src/signals/page';
import {
  signalConditionValues,
  signalRowsQuery,
  type SeekKey,
  type SignalFilter,
  type SignalRow,
} from '../../src/signals/query';
import { signalJson, type SignalJson } from '../../src/signals/serialize';
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
    title: 'No place\rat all',
    content_display:
      'A signal with no country or city\nand no coordinates (a line break, nothing else to quote)',
    country_codes: [],
    published_at: '1999-12-31T23:59:59Z',
    source_url: 'https://edges.example.com/nowhere',
    source: { name: 'Edge Cases' },
  },
];

describe.each(backends)('a page of signals written by Postgres on $name', (backend) => {
  let database: DatabaseHandle;

  beforeAll(async () => {
    database = await backend.open();
    const items = [...fixtureItems(), ...Object.values(NASTY), ...EDGES];
    expect(await ingestSignals(database.db, items)).toMatchObject({ accepted: items.length, rejected: 0 });
  });
  afterAll(async () => {
    await database?.close();
  });

  const PAGES: [string, SignalFilter, { limit: number; offset: number }][] = [
    ['everything', {}, { limit: 100, offset: 0 }],
    ['a first page', {}, { limit: 3, offset: 0 }],
    ['a middle page', {}, { limit: 4, offset: 5 }],
    ['the last page exactly', {}, { limit: 5, offset: 10 }],
    ['past the end', {}, { limit: 5, offset: 100 }],
    ['a layer and a score', { layers: ['cyber', 'military'], minScore: 5 }, { limit: 2, offset: 0 }],
    ['a search', { search: 'power' }, { limit: 10, offset: 0 }],
    ['a box', { bbox: { minLat: -1, minLng: -1, maxLat: 60, maxLng: 40 } }, { limit: 10, offset: 0 }],
    ['nothing', { country: 'AQ' }, { limit: 10, offset: 0 }],
  ];

  /** The page as drizzle reads its rows (limit + 1 of them), in the public shape. */
  const expectedPage = async (filter: SignalFilter, page: { limit: number; offset: number }) => {
    const window = { fetch: page.limit + 1, offset: page.offset };
    const rows: SignalRow[] = await signalRowsQuery(database.db, filter, window);
    return { signals: rows.slice(0, page.limit).map(signalJson), hasMore: rows.length > page.limit };
  };

  type Item = {
    significance_score: number;
    published_at: string;
    threat_layer: string;
    title: string;
    content_display: string;
    country_codes: readonly string[];
    lat?: number | null;
    lng?: number | null;
    source_url: string;
  };
  /**
   * Which signals a page holds, worked out here from the ingested items without the query under
   * test: filters applied in JavaScript, ordered by score then time, newest first.
   */
  const independentPage = async (filter: SignalFilter, page: { limit: number; offset: number }) => {
    // Ties on score and time go by id (random at ingest): the only thing read from the database.
    const rows = await database.db.select({ id: signals.id, url: signals.sourceUrl }).from(signals);
    const idOf = new Map(rows.map((row) => [row.url, row.id]));
    const items = [...fixtureItems(), ...Object.values(NASTY), ...EDGES] as unknown as Item[];
    const { bbox } = filter;
    return items
      .filter((item) => !filter.layers || filter.layers.includes(item.threat_layer as never))
      .filter((item) => filter.minScore === undefined || item.significance_score >= filter.minScore)
      .filter((item) => !filter.country || item.country_codes.includes(filter.country))
      .filter((item) => !filter.search || /\bpower/i.test(`${item.title} ${item.content_display}`))
      .filter(
        (item) =>
          !bbox ||
          (item.lat != null &&
            item.lng != null &&
            item.lat >= bbox.minLat &&
            item.lat <= bbox.maxLat &&
            item.lng >= bbox.minLng &&
            item.lng <= bbox.maxLng),
      )
      .sort(
        (a, b) =>
          b.significance_score - a.significance_score ||
          Date.parse(b.published_at) - Date.parse(a.published_at) ||
          (idOf.get(a.source_url)! < idOf.get(b.source_url)! ? -1 : 1),
      )
      .slice(page.offset, page.offset + page.limit)
      .map((item) => item.source_url);
  };

  it.each(PAGES)(
    'holds the signals an independent reading of the items selects: %s',
    async (_, filter, page) => {
      const built = await listSignalPage(database.db, filter, page, 'json');
      const data = JSON.parse(built.data) as { source_url: string }[];
      expect(data.map((signal) => signal.source_url)).toEqual(await independentPage(filter, page));
    },
  );

  it.each(PAGES)('JSON equals the rows drizzle reads, in the public shape: %s', async (_, filter, page) => {
    const expected = await expectedPage(filter, page);
    const built = await listSignalPage(database.db, filter, page, 'json');
    const data = JSON.parse(built.data) as unknown[];
    expect(data).toEqual(expected.signals);
    // Same keys in the same order, so the two serialisations read alike too.
    expect(data.map((signal) => JSON.stringify(Object.keys(signal as object)))).toEqual(
      expected.signals.map((signal) => JSON.stringify(Object.keys(signal))),
    );
    expect(built).toMatchObject({ count: expected.signals.length, hasMore: expected.hasMore });
  });

  /** A text cell as the CSV must carry it: empty for null, `'` before a formula's first character. */
  const cell = (text: string | null) => (text === null ? '' : /^[=+\-@]/.test(text) ? `'${text}` : text);
  const numberCell = (value: number | null) => (value === null ? '' : value);

  it.each(PAGES)('CSV parses strictly to the same signals: %s', async (_, filter, page) => {
    const expected = await expectedPage(filter, page);
    const built = await listSignalPage(database.db, filter, page, 'csv');
    expect(built).toMatchObject({ count: expected.signals.length, hasMore: expected.hasMore });
    const text = signalsCsv(built.data);
    const [header, ...records] = parse(text, {
      record_delimiter: '\r\n',
      relax_quotes: false,
      relax_column_count: false,
    });
    expect(text.endsWith('\r\n')).toBe(true);
    // Outside quoted fields, a line break only ever ends a record (a parser set to CRLF would
    // read a bare LF into the field; a spreadsheet would start a new row).
    const unquoted = text.replace(/"(?:[^"]|"")*"/g, '""').split('\r\n');
    expect(unquoted.filter((line) => /[\r\n]/.test(line))).toEqual([]);
    expect(header).toEqual([...CSV_COLUMNS]);
    const read = records.map((record) =>
      Object.fromEntries(CSV_COLUMNS.map((name, i) => [name, record[i]!])),
    );
    expect(
      read.map((r) => ({
        ...r,
        significance_score: Number(r.significance_score),
        lat: r.lat && Number(r.lat),
        lng: r.lng && Number(r.lng),
      })),
    ).toEqual(
      expected.signals.map((s: SignalJson) => ({
        id: s.id,
        threat_layer: s.threat_layer,
        significance_score: s.significance_score,
        signal_valence: s.signal_valence,
        title: cell(s.title),
        content_display: cell(s.content_display),
        country_codes: s.country_codes.join(';'),
        region: cell(s.region),
        city: cell(s.city),
        lat: numberCell(s.lat),
        lng: numberCell(s.lng),
        language: cell(s.language),
        published_at: s.published_at,
        collected_at: s.collected_at,
        is_anomaly: String(s.is_anomaly),
        source_url: cell(s.source_url),
        source_id: s.source.id,
        source_name: cell(s.source.name),
        source_tier: s.source.tier,
        updated_at: s.updated_at,
        retracted_at: cell(s.retracted_at),
        event_id: s.event_id,
        corroboration: String(s.corroboration),
      })),
    );
  });
});

describe('the values of a page statement', () => {
  const SEEK_RANK = {
    order: 'rank',
    score: 7.5,
    publishedAt: '2026-11-20T06:00:00.123456+00:00',
    id: '3f1c2a9e-7b4d-4e8a-9c1f-2d6b8a0e5f31',
  } as const;
  const SEEK_SYNC = {
    order: 'sync',
    updatedAt: '2026-11-20T06:00:00+00:00',
    id: '3f1c2a9e-7b4d-4e8a-9c1f-2d6b8a0e5f31',
  } as const;
  const FILTERS: [string, SignalFilter, SeekKey | undefined][] = [
    ['no filter', {}, undefined],
    [
      'every filter',
      {
        layers: ['cyber', 'military', 'health'],
        minScore: 6.5,
        region: 'Europe',
        country: 'UA',
        city: '50%_off\\',
        start: new Date('2026-11-01T00:00:00Z'),
        end: new Date('2026-11-22T00:00:00Z'),
        search: '"power grid" OR substation',
        valence: 'crisis',
        bbox: { minLat: 44, minLng: 22, maxLat: 53, maxLng: 41 },
        anomaly: false,
        eventId: '9d2e4b1c-3a5f-4e7d-8b6c-1f0a2e3d4c5b',
      },
      SEEK_RANK,
    ],
    ['filters that bind nothing', { minScore: 0, layers: [], city: '' }, undefined],
    ['one signal per event', { distinct: 'event', layers: ['cyber'], minScore: 7 }, SEEK_RANK],
    ['sync', { updatedSince: new Date('2026-11-20T00:00:00Z'), anomaly: true }, SEEK_SYNC],
  ];

  // A statement is compiled once per shape, and its values are then read from the filter alone:
  // each of these compiles, and compiling checks the values against the conditions' own.
  it.each(FILTERS)('are the values its conditions bind: %s', async (_, filter, after) => {
    const database = await backends[0]!.open();
    try {
      for (const format of ['json', 'csv'] as const) {
        const statement = signalPageStatement(database.db, filter, { limit: 5, offset: 0, after }, format);
        const expected = Object.values(signalConditionValues(filter, after)).map((value) =>
          value instanceof Date ? value.toISOString() : value,
        );
        for (const value of expected) expect(statement.params).toContain(value);
        expect(statement.params).toEqual(expect.arrayContaining([5, 6, 0]));
      }
    } finally {
      await database.close();
    }
  });
});
