import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { CSV_COLUMNS } from '../../src/signals/csv';
import { FIXTURE, fixtureItems, type FixtureName } from '../support/fixture';
import { backends, withTestApp, expectInvalid } from '../support/harness';

describe.each(backends)('GET /api/v1/signals on $name', (backend) => {
  const nameOf = new Map<string, FixtureName>();
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const result = await ingestSignals(db, fixtureItems());
      expect(result).toMatchObject({ accepted: 10, rejected: 0 });
    },
    key: 'pro',
  });
  beforeAll(async () => {
    const all = await (await get('/api/v1/signals?limit=100')).json<Page>();
    for (const signal of all.data) {
      const name = (Object.keys(FIXTURE) as FixtureName[]).find(
        (n) => FIXTURE[n].source_url === signal.source_url,
      )!;
      nameOf.set(signal.id, name);
    }
  });

  type Page = {
    data: { id: string; source_url: string; [k: string]: unknown }[];
    pagination: { limit: number; offset: number; has_more: boolean; next_offset: number | null };
  };
  const get = (path: string, headers: Record<string, string> = { 'X-Api-Key': app.key }) =>
    app.fetch(path, { headers });
  const names = async (query: string) => {
    const res = await get(`/api/v1/signals?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json<Page>()).data.map((s) => nameOf.get(s.id));
  };
  /** The two 7.5 signals tie on score and time, so their order is by id. */
  const tie = () =>
    [...nameOf.entries()]
      .filter(([, n]) => n === 'lvivGrid' || n === 'mumbaiFlood')
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, n]) => n);

  it('orders by score, then publication time, then id', async () => {
    expect(await names('')).toEqual([
      'kyivStrike',
      'globalOutbreak',
      'lyonHospital',
      ...tie(),
      'bogotaCartel',
      'lagosPort',
      'tokyoMarkets',
      'ottawaVote',
      'lagosResolved',
    ]);
  });

  it.each([
    ['layers=cyber', ['lyonHospital', 'lvivGrid']],
    ['layers=cyber,military', ['kyivStrike', 'lyonHospital', 'lvivGrid']],
    ['layers=supply_chain&valence=resolution', ['lagosResolved']],
    ['region=Europe', ['kyivStrike', 'lyonHospital', 'lvivGrid']],
    ['region=Sub-Saharan%20Africa', ['lagosPort', 'lagosResolved']],
    ['country=PL', ['lvivGrid']],
    ['country=ua', ['kyivStrike', 'lvivGrid']],
    ['city=lag', ['lagosPort', 'lagosResolved']],
    ['city=%25', []],
    ['start=2026-11-21T00:00:00Z', ['globalOutbreak', 'lyonHospital', 'lagosResolved']],
    ['start=2026-11-21T10:00:00%2B01:00', ['lyonHospital', 'lagosResolved']],
    ['end=2026-11-16T23:59:59Z', ['bogotaCartel', 'ottawaVote']],
    ['start=2026-11-17&end=2026-11-18T15:00:00Z', ['lagosPort', 'tokyoMarkets']],
    ['search=power', ['kyivStrike', 'lvivGrid', 'ottawaVote']], // English stemming: "powers" matches
    ['search=%22power%20substation%22', ['kyivStrike']],
    ['search=strike%20-missile', ['lagosPort', 'lagosResolved']],
    ['search=ransomware%20OR%20cartel', ['lyonHospital', 'bogotaCartel']],
    ['valence=resolution', ['lagosResolved']],
    ['bbox=40,-80,50,-70', ['ottawaVote']],
    ['bbox=44,20,52,32', ['kyivStrike', 'lvivGrid']],
    ['anomaly=true', ['mumbaiFlood']],
    ['min_score=8.5', ['kyivStrike', 'globalOutbreak']],
    ['min_score=10', []],
  ])('filters %s', async (query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  it('min_score includes signals exactly at the threshold', async () => {
    expect(await names('min_score=7.5')).toEqual(['kyivStrike', 'globalOutbreak', 'lyonHospital', ...tie()]);
  });

  it('anomaly=false returns only the signals not flagged', async () => {
    const result = await names('anomaly=false');
    expect(result).toHaveLength(9);
    expect(result).not.toContain('mumbaiFlood');
  });

  it('pages are stable and complete', async () => {
    const first = await (await get('/api/v1/signals?limit=3')).json<Page>();
    expect(first.pagination).toEqual({
      limit: 3,
      offset: 0,
      has_more: true,
      next_offset: 3,
      next_cursor: expect.any(String),
    });
    const last = await (await get('/api/v1/signals?limit=3&offset=9')).json<Page>();
    expect(last.data).toHaveLength(1);
    expect(last.pagination).toEqual({
      limit: 3,
      offset: 9,
      has_more: false,
      next_offset: null,
      next_cursor: null,
    });
    const walked: string[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page: Page = await (await get(`/api/v1/signals?limit=2&offset=${offset}`)).json();
      walked.push(...page.data.map((s) => s.id));
      offset = page.pagination.next_offset;
    }
    expect(walked.map((id) => nameOf.get(id))).toEqual(await names(''));
  });

  it('list items carry the documented fields', async () => {
    const page = await (await get('/api/v1/signals?country=FR')).json<Page>();
    expect(page.data[0]).toEqual({
      id: expect.any(String),
      threat_layer: 'cyber',
      significance_score: 8.1,
      signal_valence: 'crisis',
      title: FIXTURE.lyonHospital.title,
      content_display: FIXTURE.lyonHospital.content_display,
      country_codes: ['FR'],
      region: 'Europe',
      city: 'Lyon',
      lat: 45.76,
      lng: 4.84,
      language: 'fr',
      published_at: '2026-11-21T09:30:00.000Z',
      collected_at: '2026-11-21T09:30:00.000Z',
      is_anomaly: false,
      source_url: FIXTURE.lyonHospital.source_url,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      retracted_at: null,
      source: { id: expect.any(String), name: 'Le Journal', tier: 'community' },
      // A signal alone founds its event under its own id, confirmed by its one publisher.
      event_id: page.data[0]!.id,
      corroboration: 1,
    });
  });

  it('CSV parses strictly and matches the JSON', async () => {
    const [csvRes, jsonRes] = await Promise.all([
      get('/api/v1/signals?format=csv&limit=100'),
      get('/api/v1/signals?limit=100'),
    ]);
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csvRes.headers.get('content-disposition')).toMatch(/^attachment; filename="signals\.csv"$/);
    const text = await csvRes.text();
    expect(text.endsWith('\r\n')).toBe(true);
    const rows: Record<string, string>[] = parse(text, {
      columns: true,
      record_delimiter: '\r\n',
      relax_quotes: false,
      relax_column_count: false,
    });
    const json = (await jsonRes.json<Page>()).data;
    expect(Object.keys(rows[0]!)).toEqual([...CSV_COLUMNS]);
    expect(rows.map((r) => r.id)).toEqual(json.map((s) => s.id));
    rows.forEach((row, i) => {
      const s = json[i]! as unknown as Record<string, unknown> & { source: { name: string; tier: string } };
      expect(row.significance_score).toBe(String(s.significance_score));
      expect(row.country_codes).toBe((s.country_codes as string[]).join(';'));
      expect(row.content_display).toBe(s.content_display);
      expect(row.source_name).toBe(s.source.name);
      expect(row.is_anomaly).toBe(String(s.is_anomaly));
      expect(row.lat).toBe(s.lat === null ? '' : String(s.lat as number));
    });
    const cartel = rows.find((r) => r.source_url === FIXTURE.bogotaCartel.source_url)!;
    expect(cartel.title).toBe(`'${FIXTURE.bogotaCartel.title}`);
  });

  it.each([
    ['layers=foo', 'layers'],
    ['layers=cyber,,weather', 'layers'],
    ['min_score=11', 'min_score'],
    ['min_score=-1', 'min_score'],
    ['min_score=abc', 'min_score'],
    ['region=Mars', 'region'],
    ['country=XX', 'country'],
    ['country=USA', 'country'],
    ['city=', 'city'],
    ['start=yesterday', 'start'],
    ['end=2026-13-01', 'end'],
    ['start=2026-11-21T00:00:00', 'start'],
    ['start=2026-11-22&end=2026-11-01', 'start'],
    [`search=${'a'.repeat(201)}`, 'search'],
    ['valence=bad', 'valence'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['bbox=1,2,3', 'bbox'],
    ['bbox=100,0,0,0', 'bbox'],
    ['bbox=10,0,5,0', 'bbox'],
    ['bbox=a,b,c,d', 'bbox'],
    ['anomaly=yes', 'anomaly'],
    ['format=xml', 'format'],
  ])('rejects %s naming %s', async (query, field) => {
    await expectInvalid(await get(`/api/v1/signals?${query}`), field);
  });

  it('lists every invalid field at once', async () => {
    const body = await (
      await get('/api/v1/signals?limit=0&min_score=11&valence=x')
    ).json<{
      errors: { path: string }[];
    }>();
    expect(body.errors.map((e) => e.path).sort()).toEqual(['limit', 'min_score', 'valence']);
  });

  it('refuses an unknown query parameter instead of ignoring it, but lets utm_* and _ through', async () => {
    const res = await get('/api/v1/signals?layers=cyber&color=blue');
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: unknown[] }>()).errors).toEqual([
      { path: 'color', message: 'unknown parameter' },
    ]);
    expect(await names('layers=cyber&utm_source=x&_=1')).toEqual(['lyonHospital', 'lvivGrid']);
  });

  it('shows one signal with entities and source metadata', async () => {
    const id = [...nameOf.entries()].find(([, n]) => n === 'lagosPort')![0];
    const res = await get(`/api/v1/signals/${id}`);
    expect(res.status).toBe(200);
    const body = await res.json<{
      id: string;
      entities: { name: string; type: string; count: number }[];
      source: Record<string, unknown>;
    }>();
    expect(body.id).toBe(id);
    expect(body.entities).toContainEqual({ name: 'Lagos', type: 'location', count: 2 }); // title and text
    expect(body.source).toMatchObject({
      name: 'Lagos Ledger',
      tier: 'discovered',
      signal_count: 2,
      last_seen_at: '2026-11-21T18:00:00.000Z',
    });
  });

  it('answers 404 for an unknown signal and 400 for a malformed id', async () => {
    const missing = await get('/api/v1/signals/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect((await missing.json<{ code: string }>()).code).toBe('not_found');
    const malformed = await get('/api/v1/signals/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect((await malformed.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe('id');
  });

  it('needs a key: 401 missing_api_key with WWW-Authenticate', async () => {
    const res = await get('/api/v1/signals', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await res.json<{ code: string }>()).code).toBe('missing_api_key');
  });

  it.each([
    ['a malformed key', 'not-a-key'],
    ['a key with a bad checksum', 'sig_' + 'A'.repeat(40)],
    ['a well-formed unknown key', 'UNKNOWN'],
  ])('refuses %s with 401 invalid_api_key', async (_, presented) => {
    const raw = presented === 'UNKNOWN' ? (await import('../../src/keys/key')).generateKey() : presented;
    const res = await get('/api/v1/signals', { 'X-Api-Key': raw });
    expect(res.status).toBe(401);
    expect((await res.json<{ code: string }>()).code).toBe('invalid_api_key');
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const res = await get('/api/v1/signals?limit=1', { Authorization: `Bearer ${app.key}` });
    expect(res.status).toBe(200);
  });

  it('answers unknown paths with a 404 problem', async () => {
    const res = await get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await res.json<{ code: string }>()).code).toBe('not_found');
  });
});
