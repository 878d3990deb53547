import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { admin, backends, withTestApp } from '../support/harness';

const item = (n: number, overrides: Record<string, unknown> = {}) => ({
  threat_layer: 'cyber',
  significance_score: 6,
  signal_valence: 'update',
  content_display: `Officials in Berlin said systems were restored after incident ${n}.`,
  country_codes: ['de'],
  published_at: `2026-11-20T0${n % 10}:00:00Z`,
  source_url: `https://ingest.example.com/${n}`,
  source: { name: 'Ingest Test Source' },
  ...overrides,
});

describe.each(backends)('ingest on $name', (backend) => {
  const app = withTestApp({ open: backend.open });

  const post = (body: string, type = 'application/json', auth = true) =>
    app.fetch(
      '/api/v1/admin/signals',
      (auth ? admin : (i: RequestInit) => i)({ method: 'POST', headers: { 'Content-Type': type }, body }),
    );

  it('accepts good items, skips duplicates and reports bad ones by index', async () => {
    await ingestSignals(app.db, [item(1)]);
    const batch = [
      item(2),
      item(1), // already stored
      item(3),
      item(3), // twice in this batch
      item(4, { threat_layer: 'weather' }),
      item(5, { significance_score: 11, country_codes: ['XX'] }),
      item(6, { extra: true }),
      item(7, { lat: 10 }),
    ];
    const res = await post(JSON.stringify(batch));
    expect(res.status).toBe(200);
    const body = await res.json<{
      accepted: number;
      duplicates: number;
      rejected: number;
      errors: { index: number; errors: { path: string; message: string }[] }[];
    }>();
    expect(body).toMatchObject({ accepted: 2, duplicates: 2, rejected: 4 });
    expect(body.errors.map((e) => e.index)).toEqual([4, 5, 6, 7]);
    expect(body.errors[0]!.errors.map((e) => e.path)).toEqual(['threat_layer']);
    expect(body.errors[1]!.errors.map((e) => e.path).sort()).toEqual([
      'country_codes.0',
      'significance_score',
    ]);
    expect(body.errors[2]!.errors[0]!.message).toMatch(/extra/);
    expect(body.errors[3]!.errors.map((e) => e.path)).toEqual(['lat']);
  });

  it('stores derived fields: upper-cased countries, region, source, title, entities', async () => {
    await post(
      JSON.stringify([
        item(8, {
          content_display:
            'President Emmanuel Macron met NATO officials in Paris. Macron said talks went well.',
          country_codes: ['fr', 'de'],
          source: { name: 'New Source', tier: 'community' },
        }),
      ]),
    );
    const [row] = await queryRows<{ country_codes: string[]; region: string; title: string; tier: string }>(
      app.db,
      sql`SELECT s.country_codes, s.region, s.title, src.tier FROM signals s JOIN sources src ON src.id = s.source_id WHERE s.source_url = 'https://ingest.example.com/8'`,
    );
    expect(row).toEqual({
      country_codes: ['FR', 'DE'],
      region: 'Europe',
      title: 'President Emmanuel Macron met NATO officials in Paris.',
      tier: 'community',
    });
    const found = await queryRows<{ name: string; type: string; mentions: number }>(
      app.db,
      sql`SELECT e.name, e.type, se.mentions FROM signal_entities se JOIN entities e ON e.id = se.entity_id
          JOIN signals s ON s.id = se.signal_id WHERE s.source_url = 'https://ingest.example.com/8' ORDER BY e.name`,
    );
    expect(found).toContainEqual({ name: 'NATO', type: 'organization', mentions: 1 });
    expect(found).toContainEqual({ name: 'Paris', type: 'location', mentions: 1 });
    expect(found.find((e) => e.type === 'person')?.name).toMatch(/Macron/);
  });

  it('takes NDJSON, reporting a line that is not JSON by its index', async () => {
    const lines = [JSON.stringify(item(20)), '{not json', '', JSON.stringify(item(21))].join('\n');
    const res = await post(lines, 'application/x-ndjson');
    const body = await res.json<{ accepted: number; rejected: number; errors: { index: number }[] }>();
    expect(body).toMatchObject({ accepted: 2, rejected: 1 });
    expect(body.errors[0]!.index).toBe(1);
  });

  it('flags a spike of one country and layer against its 7-day baseline', async () => {
    const spike = Array.from({ length: 6 }, (_, i) =>
      item(100 + i, {
        country_codes: ['KE'],
        threat_layer: 'health',
        published_at: `2026-11-10T0${i}:30:00Z`,
      }),
    );
    await ingestSignals(app.db, spike);
    const rows = await queryRows<{ source_url: string; is_anomaly: boolean }>(
      app.db,
      sql`SELECT source_url, is_anomaly FROM signals WHERE 'KE' = ANY(country_codes) ORDER BY published_at`,
    );
    // No baseline: z = n / 1, so the 4th signal in 6 hours is the first to count as a spike.
    expect(rows.map((r) => r.is_anomaly)).toEqual([false, false, false, true, true, true]);
  });

  it('keeps hourly aggregates in step with the signals', async () => {
    const [agg] = await queryRows<{ n: number }>(
      app.db,
      sql`SELECT sum(signal_count)::int AS n FROM signal_hourly`,
    );
    const [count] = await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`);
    expect(agg!.n).toBe(count!.n);
  });

  it('guards the admin API and the body', async () => {
    expect((await post('[]', 'application/json', false)).status).toBe(401);
    const wrongType = await post('[]', 'text/plain');
    expect(wrongType.status).toBe(415);
    expect((await wrongType.json<{ code: string }>()).code).toBe('unsupported_media_type');
    const broken = await post('[{', 'application/json');
    expect(broken.status).toBe(400);
    expect((await broken.json<{ code: string }>()).code).toBe('invalid_json');
    const notArray = await post('{}', 'application/json');
    expect(notArray.status).toBe(400);
    const huge = await post(JSON.stringify([{ content_display: 'x'.repeat(10 * 1024 * 1024) }]));
    expect(huge.status).toBe(413);
    expect((await huge.json<{ code: string }>()).code).toBe('payload_too_large');
  });

  it('changes nothing when every item is bad', async () => {
    const before = await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`);
    const res = await post(JSON.stringify([{ ...FIXTURE.kyivStrike, significance_score: 'high' }]));
    expect((await res.json<{ rejected: number }>()).rejected).toBe(1);
    const after = await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`);
    expect(after).toEqual(before);
  });
});
