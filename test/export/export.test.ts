import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { CSV_COLUMNS } from '../../src/signals/csv';
import { BULK, bulkItems, FIXTURE, fixtureItems } from '../support/fixture';
import { backends, withTestApp } from '../support/harness';
import { NASTY } from '../feeds/nasty';

const ALL = { ...FIXTURE, ...NASTY } as Record<string, { source_url: string }>;
const nameByUrl = new Map(Object.entries(ALL).map(([name, item]) => [item.source_url, name]));
const label = (url: string) => nameByUrl.get(url) ?? 'bulk';

/** RFC 4180, strictly: CRLF records, exact quoting, every row as wide as the header. */
const parseCsv = (text: string) =>
  parse(text, {
    record_delimiter: '\r\n',
    relax_quotes: false,
    relax_column_count: false,
    bom: false,
  });

describe.each(backends)('GET /api/export on $name', (backend) => {
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const result = await ingestSignals(db, [...fixtureItems(), ...Object.values(NASTY), ...bulkItems()]);
      expect(result).toMatchObject({ accepted: 12 + BULK, rejected: 0 });
    },
    deps: { now: () => new Date('2026-11-22T10:00:00Z') },
  });

  const csv = async (query: string) => {
    const res = await app.fetch(`/api/export?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual([...CSV_COLUMNS]);
    return rows.map((row) => Object.fromEntries(CSV_COLUMNS.map((column, i) => [column, row[i]!])));
  };
  const json = async (query: string) => {
    const res = await app.fetch(`/api/export?format=json&${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return await res.json<{ data: { source_url: string }[]; count: number; limit: number }>();
  };

  it('serves RFC 4180 CSV by default as a dated download', async () => {
    const res = await app.fetch('/api/export?limit=3');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="signals-2026-11-22.csv"');
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    const text = await res.text();
    expect(text.split('\r\n')).toHaveLength(5); // header, 3 rows, and the final CRLF
    expect(text).not.toMatch(/(?<!\r)\n/);
  });

  it('orders like /api/v1/signals and keeps every field of the row', async () => {
    const rows = await csv('limit=4');
    expect(rows.map((r) => label(r.source_url!))).toEqual([
      'markup',
      'kyivStrike',
      'globalOutbreak',
      'lyonHospital',
    ]);
    expect(rows[3]).toMatchObject({
      threat_layer: 'cyber',
      significance_score: '8.1',
      signal_valence: 'crisis',
      title: FIXTURE.lyonHospital.title,
      country_codes: 'FR',
      city: 'Lyon',
      published_at: '2026-11-21T09:30:00.000Z',
      is_anomaly: 'false',
      source_name: 'Le Journal',
    });
    // Quotes, commas, line-breaking characters and emoji survive the round trip.
    expect(rows[0]!.content_display).toBe(NASTY.markup.content_display);
    expect(rows[0]!.title).toBe(NASTY.markup.title);
  });

  it('neutralises cells a spreadsheet would run as formulas', async () => {
    const [formula] = await csv('layer=economic&country=DE');
    expect(formula!.title).toBe("'+1 analysts expect a rally");
    expect(formula!.content_display).toBe("'@SUM(A1:A9) markets rose; -5% was the low");
    expect(formula!.source_name).toBe("'-Minus Markets");
    const [cartel] = await csv('layer=criminal');
    expect(cartel!.title).toBe(`'${FIXTURE.bogotaCartel.title}`);
    // JSON carries the text as it is: only spreadsheets need the guard.
    const exported = await json('layer=criminal');
    expect((exported.data[0] as unknown as { title: string }).title).toBe(FIXTURE.bogotaCartel.title);
  });

  it.each([
    ['', 200],
    ['limit=1', 1],
    ['limit=1000', 1000],
    ['limit=1001', 1000],
    ['limit=5000', 1000],
    ['limit=99999999999999999999999', 1000],
  ])('limit %s gives %i rows, capped at 1,000', async (query, rows) => {
    expect(await csv(query)).toHaveLength(rows);
    const exported = await json(query);
    expect(exported.data).toHaveLength(rows);
    expect(exported.count).toBe(rows);
    expect(exported.limit).toBe(rows);
  });

  it.each([
    ['layer=cyber', ['markup', 'lyonHospital', 'lvivGrid']],
    ['country=ua', ['kyivStrike', 'lvivGrid']],
    ['country=NG', ['lagosPort', 'lagosResolved']],
    ['valence=resolution', ['lagosResolved']],
    ['minScore=8.5', ['markup', 'kyivStrike', 'globalOutbreak']],
    ['minScore=7.5&layer=disaster', ['mumbaiFlood']],
    ['layer=supply_chain&valence=crisis&country=NG&minScore=5', ['lagosPort']],
    ['country=JP&limit=3', ['tokyoMarkets', 'bulk', 'bulk']],
    ['layer=health&country=FR', []],
  ])('filters %s, the same in CSV and JSON', async (query, expected) => {
    const rows = await csv(query);
    expect(rows.map((r) => label(r.source_url!))).toEqual(expected);
    const exported = await json(query);
    expect(exported.count).toBe(rows.length);
    expect(exported.data.map((s) => s.source_url)).toEqual(rows.map((r) => r.source_url));
  });

  it('sends JSON with the signal shape and a .json filename', async () => {
    const res = await app.fetch('/api/export?format=json&layer=political');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="signals-2026-11-22.json"');
    const body = await res.json<{ data: Record<string, unknown>[]; count: number; limit: number }>();
    expect(body.count).toBe(1);
    expect(body.limit).toBe(200);
    expect(body.data[0]).toMatchObject({
      threat_layer: 'political',
      country_codes: ['CA'],
      source: { name: 'Example Wire', tier: 'core' },
    });
  });

  it('answers If-None-Match with 304', async () => {
    const first = await app.fetch('/api/export?layer=military');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = await app.fetch('/api/export?layer=military', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('filters by the /signals spellings (layers, min_score) as by its own', async () => {
    type Row = { source_url: string; threat_layer: string; significance_score: number };
    const rows = async (query: string) => (await json(query)).data as unknown as Row[];
    const all = await rows('limit=1000');
    const own = await rows('layer=cyber&minScore=8');
    const aliased = await rows('layers=cyber&min_score=8');
    expect(aliased.length).toBeGreaterThan(0);
    expect(aliased.length).toBeLessThan(all.length);
    expect(aliased.every((s) => s.threat_layer === 'cyber' && s.significance_score >= 8)).toBe(true);
    expect(aliased.map((s) => s.source_url)).toEqual(own.map((s) => s.source_url));

    const several = await rows('layers=cyber,military');
    expect(new Set(several.map((s) => s.threat_layer))).toEqual(new Set(['cyber', 'military']));
    expect(several.length).toBe(all.filter((s) => ['cyber', 'military'].includes(s.threat_layer)).length);
  });

  it.each([
    ['layer=cyber&layers=military', 'layers'],
    ['minScore=5&min_score=7', 'min_score'],
  ])('refuses a filter given under both spellings (%s)', async (query, field) => {
    const res = await app.fetch(`/api/export?${query}`);
    expect(res.status).toBe(400);
    const body = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e) => e.path)).toEqual([field]);
  });

  it('names an unknown parameter and the one meant instead of ignoring it', async () => {
    const res = await app.fetch('/api/export?minscore=9&regoin=Europe');
    expect(res.status).toBe(400);
    const body = await res.json<{
      code: string;
      detail: string;
      errors: { path: string; message: string }[];
    }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors).toEqual([
      { path: 'minscore', message: 'unknown parameter; did you mean `minScore`?' },
      { path: 'regoin', message: 'unknown parameter' },
    ]);
    expect(body.detail).toContain('minscore, regoin');
  });

  it.each([
    ['layer=weather', 'layer'],
    ['layer=cyber,military', 'layer'],
    ['country=XX', 'country'],
    ['valence=maybe', 'valence'],
    ['minScore=11', 'minScore'],
    ['minScore=-1', 'minScore'],
    ['minScore=high', 'minScore'],
    ['format=xlsx', 'format'],
    ['limit=0', 'limit'],
    ['limit=-5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
  ])('rejects %s naming %s', async (query, field) => {
    const res = await app.fetch(`/api/export?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e) => e.path)).toContain(field);
  });
});
