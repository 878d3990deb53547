import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import { ingestSourceItems, type UpstreamSource } from '../../src/ingest/upstream';
import { isCalendarTime, isDatetimeError } from '../../src/signals/timestamps';
import type { SourceItem } from '../../src/sources/types';
import { seedCatalogue, sourceByName } from '../../src/sources/rows';
import { FIXTURE } from '../support/fixture';
import { admin, backends, json, withTestApp } from '../support/harness';

type Json = Record<string, any>;

const item = (n: number, published_at: string) => ({
  ...FIXTURE.kyivStrike,
  title: `Dated item ${n}`,
  published_at,
  source_url: `https://dates.example.org/${n}-${published_at}`,
});

const toBase64Url = (text: string) => Buffer.from(text).toString('base64url');
const fromBase64Url = (text: string) => Buffer.from(text, 'base64url').toString();

describe('calendar check', () => {
  it.each([
    '2026-02-31',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60Z',
  ])('refuses %s', (text) => expect(isCalendarTime(text)).toBe(false));
  it.each(['2026-02-28', '2024-02-29T00:00:00Z', '2026-11-20T06:00:00.123456+05:30', '2026-11-20T06:00Z'])(
    'accepts %s',
    (text) => expect(isCalendarTime(text)).toBe(true),
  );
});

describe.each(backends)('dates outside the accepted range on $name', (backend) => {
  const get = async (path: string) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    return { status: res.status, body: await res.json<Json>() };
  };
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      await seedCatalogue(db);
    },
    key: 'pro',
    timeout: 180_000,
  });
  beforeAll(async () => {
    const res = await app.fetch(
      '/api/v1/admin/signals',
      admin(
        json([
          item(1, '2026-11-20T06:00:00Z'),
          item(2, '2026-11-19T06:00:00Z'),
          item(3, '2026-11-18T06:00:00Z'),
        ]),
      ),
    );
    expect((await res.json<Json>()).accepted).toBe(3);
  });

  it('admin ingest rejects each out-of-range item by position and stores the rest', async () => {
    const future = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const batch = [
      item(10, '0000-01-01T00:00:00Z'),
      item(11, '2026-11-21T00:00:00Z'),
      item(12, '0099-06-01T00:00:00Z'),
      item(13, '9999-12-31T00:00:00Z'),
      item(14, '1899-12-31T23:59:59Z'),
      item(15, future),
      { ...item(16, '2026-11-21T00:00:00Z'), collected_at: '0001-01-01T00:00:00Z' },
    ];
    const res = await app.fetch('/api/v1/admin/signals', admin(json(batch)));
    expect(res.status).toBe(200);
    const body = await res.json<Json>();
    expect(body).toMatchObject({ accepted: 1, rejected: 6 });
    expect(body.errors.map((e: Json) => [e.index, e.errors[0].path])).toEqual([
      [0, 'published_at'],
      [2, 'published_at'],
      [3, 'published_at'],
      [4, 'published_at'],
      [5, 'published_at'],
      [6, 'collected_at'],
    ]);
    const [row] = await queryRows<{ n: number }>(
      app.db,
      sql`SELECT count(*)::int AS n FROM signals WHERE published_at < '1900-01-01' OR published_at > now() + interval '1 hour'`,
    );
    expect(row!.n).toBe(0);
  });

  it('connector items go through the same rule: the rest of the document is stored', async () => {
    const row = (await sourceByName(app.db, 'USGS significant earthquakes (past week)'))!;
    const source: UpstreamSource = { id: row.id, name: row.name, tier: 'core', url: row.url };
    const quake = (n: number, published_at: string, upstream_updated_at?: string): SourceItem => ({
      threat_layer: 'disaster',
      significance_score: 6,
      signal_valence: 'crisis',
      title: `Quake ${n}`,
      content_display: `An earthquake of magnitude ${n} was recorded offshore.`,
      country_codes: ['JP'],
      published_at,
      source_url: `https://quakes.example.org/${n}`,
      external_ids: [`quake:${n}`],
      ...(upstream_updated_at ? { upstream_updated_at } : {}),
    });
    const result = await ingestSourceItems(app.db, source, [
      quake(1, '0000-01-01T00:00:00Z'),
      quake(2, '2026-11-20T00:00:00Z'),
      quake(3, '9999-12-31T00:00:00Z'),
      quake(4, '2026-11-20T01:00:00Z', '0000-01-01T00:00:00Z'),
      quake(5, '2026-11-20T02:00:00Z', '2026-11-20T03:00:00Z'),
    ]);
    expect(result).toMatchObject({ accepted: 2, rejected: 3 });
    expect(result.errors.map((e) => [e.index, e.message.split(':')[0]])).toEqual([
      [0, 'published_at'],
      [2, 'published_at'],
      [3, 'upstream_updated_at'],
    ]);
  });

  it('an item dated 9999 is refused, so it never tops the feed', async () => {
    const res = await app.fetch(
      '/api/v1/admin/signals',
      admin(json([item(20, '9999-12-31T00:00:00Z'), item(21, '2026-11-22T00:00:00Z')])),
    );
    expect(await res.json()).toMatchObject({ accepted: 1, rejected: 1 });
    const feed = await get('/api/v1/feed?format=json');
    expect(feed.status).toBe(200);
    expect(JSON.stringify(feed.body)).not.toContain('9999-');
  });

  it.each([
    ['/api/v1/signals?start=0000-01-01', 'start'],
    ['/api/v1/signals?end=2026-02-31', 'end'],
    ['/api/v1/signals?updated_since=0000-01-01T00:00:00Z', 'updated_since'],
    ['/api/v1/signals?start=1899-12-31', 'start'],
    ['/api/v1/signals?end=2026-11-20T24:00:00Z', 'end'],
    ['/api/v1/feed?start=0000-01-01', 'start'],
    ['/api/v1/feed?end=2026-02-31', 'end'],
    ['/api/v1/snapshots?start=0000-01-01', 'start'],
    ['/api/v1/snapshots?end=2026-02-31T00:00:00Z', 'end'],
  ])('%s is a 400 naming %s', async (path, field) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e: Json) => e.path)).toContain(field);
  });

  /** A real cursor of `path` with its timestamp part replaced, as a forger would. */
  const forged = async (path: string, pick: (body: Json) => string | null, at: string) => {
    const { status, body } = await get(path);
    expect(status).toBe(200);
    const parts = JSON.parse(fromBase64Url(pick(body)!)) as unknown[];
    const i = parts.findIndex((p) => typeof p === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(p));
    expect(i).toBeGreaterThan(0);
    parts[i] = at;
    return toBase64Url(JSON.stringify(parts));
  };

  it.each(['0000-01-01T00:00:00+00:00', '2026-02-31T00:00:00+00:00', '1899-01-01T00:00:00+00:00'])(
    'a forged cursor dated %s is a 400 on signals, sync, feed and the entity view',
    async (at) => {
      const nextOf = (b: Json) => b.pagination.next_cursor as string;
      const lists = [
        ['/api/v1/signals?limit=1', nextOf],
        ['/api/v1/signals?limit=1&updated_since=2026-01-01', nextOf],
        ['/api/v1/entity?name=Kyiv&limit=1&days=365', nextOf],
      ] as const;
      for (const [path, pick] of lists) {
        const cursor = await forged(path, pick, at);
        const { status, body } = await get(`${path}&cursor=${cursor}`);
        expect({ path, status }).toEqual({ path, status: 400 });
        expect(body.code).toBe('invalid_request');
        expect(body.errors.map((e: Json) => e.path)).toContain('cursor');
      }
    },
  );

  it('tells a Postgres date/time error from the driver apart, so it is never a 500', async () => {
    const error = await queryRows(app.db, sql`SELECT ${'0000-01-01T00:00:00Z'}::timestamptz AS t`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(isDatetimeError(error)).toBe(true);
    expect(isDatetimeError(new Error('other'))).toBe(false);
  });
});
