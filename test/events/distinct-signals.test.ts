import { describe, expect, it } from 'vitest';
import { backends, withTestApp } from '../support/harness';
import { seedEvents, type EventItem } from './seed-events';

/**
 * Five events; scores chosen so the strongest member overall differs from the strongest
 * member that matches a filter:
 * - quake: military 9 (TR), cyber 8 (TR), cyber 6 (SY)
 * - leak: cyber 7.5 twice (a tie on score and time: id decides), cyber 5
 * - flood: disaster 8.5 (IN) alone
 * - strike: military 7 (UA), military 4 (PL)
 * - outage: cyber 3 alone
 */
const ITEMS: EventItem[] = [
  {
    name: 'quakeA',
    event: 'quake',
    layer: 'military',
    score: 9,
    country: 'TR',
    published: '2026-11-20T06:00:00Z',
  },
  {
    name: 'quakeB',
    event: 'quake',
    layer: 'cyber',
    score: 8,
    country: 'TR',
    published: '2026-11-20T07:00:00Z',
  },
  {
    name: 'quakeC',
    event: 'quake',
    layer: 'cyber',
    score: 6,
    country: 'SY',
    published: '2026-11-20T08:00:00Z',
  },
  {
    name: 'leakA',
    event: 'leak',
    layer: 'cyber',
    score: 7.5,
    country: 'FR',
    published: '2026-11-19T10:00:00Z',
  },
  {
    name: 'leakB',
    event: 'leak',
    layer: 'cyber',
    score: 7.5,
    country: 'FR',
    published: '2026-11-19T10:00:00Z',
  },
  {
    name: 'leakC',
    event: 'leak',
    layer: 'cyber',
    score: 5,
    country: 'DE',
    published: '2026-11-19T12:00:00Z',
  },
  {
    name: 'flood',
    event: 'flood',
    layer: 'disaster',
    score: 8.5,
    country: 'IN',
    published: '2026-11-18T10:00:00Z',
  },
  {
    name: 'strikeA',
    event: 'strike',
    layer: 'military',
    score: 7,
    country: 'UA',
    published: '2026-11-17T10:00:00Z',
  },
  {
    name: 'strikeB',
    event: 'strike',
    layer: 'military',
    score: 4,
    country: 'PL',
    published: '2026-11-17T11:00:00Z',
  },
  {
    name: 'outage',
    event: 'outage',
    layer: 'cyber',
    score: 3,
    country: 'US',
    published: '2026-11-16T10:00:00Z',
  },
];

describe.each(backends)('GET /api/v1/signals?distinct=event on $name', (backend) => {
  let nameOf: Map<string, string>;
  let eventOf: Map<string, string>;
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const seeded = await seedEvents(db, ITEMS, 'distinct');
      nameOf = new Map([...seeded.ids].map(([name, id]) => [id, name]));
      eventOf = new Map([...seeded.events].map(([name, id]) => [id, name]));
    },
    key: 'pro',
  });

  type Signal = { id: string; event_id?: string };
  type Page = {
    data: Signal[];
    pagination: { has_more: boolean; next_offset: number | null; next_cursor: string | null };
  };
  const get = (query: string) => app.fetch(`/api/v1/signals?${query}`, { headers: { 'X-Api-Key': app.key } });
  const page = async (query: string) => {
    const res = await get(query);
    expect(res.status, await res.clone().text()).toBe(200);
    return await res.json<Page>();
  };
  const names = async (query: string) => (await page(query)).data.map((s) => nameOf.get(s.id));
  const leakTie = () => ['leakA', 'leakB'].sort((a, b) => (seededId(a) < seededId(b) ? -1 : 1));
  const seededId = (name: string) => [...nameOf].find(([, n]) => n === name)![0];

  it('lists one signal per event, the strongest, in rank order', async () => {
    expect(await names('distinct=event')).toEqual(['quakeA', 'flood', leakTie()[0], 'strikeA', 'outage']);
    // Without it every signal is listed.
    expect((await names('')).length).toBe(ITEMS.length);
  });

  it('applies the other filters first, then keeps the strongest matching signal of each event', async () => {
    // quakeA is military: among the quake's cyber signals quakeB is the strongest.
    expect(await names('distinct=event&layers=cyber')).toEqual(['quakeB', leakTie()[0], 'outage']);
    // Only quakeC names Syria; only leakC names Germany.
    expect(await names('distinct=event&country=SY')).toEqual(['quakeC']);
    expect(await names('distinct=event&layers=cyber&country=DE')).toEqual(['leakC']);
    // A score floor keeps strikeA (7) and drops strikeB; the floor does not pick a weaker member.
    expect(await names('distinct=event&min_score=7')).toEqual(['quakeA', 'flood', leakTie()[0], 'strikeA']);
    expect(await names('distinct=event&layers=military&end=2026-11-17T10:30:00Z')).toEqual(['strikeA']);
    expect(
      await names('distinct=event&layers=military&start=2026-11-17T10:30:00Z&end=2026-11-18T00:00:00Z'),
    ).toEqual(['strikeB']);
    expect(await names('distinct=event&search=distinct%20quakec')).toEqual(['quakeC']);
  });

  it.each([
    ['cursor', 1],
    ['cursor', 2],
    ['offset', 1],
    ['offset', 2],
  ] as const)('never shows an event twice across pages (%s, %i per page)', async (by, limit) => {
    for (const filters of ['distinct=event', 'distinct=event&layers=cyber', 'distinct=event&min_score=4']) {
      const all = (await names(`${filters}&limit=100`)) as string[];
      const seen: string[] = [];
      let next = '';
      for (let guard = 0; guard < 20; guard++) {
        const p = await page(`${filters}&limit=${limit}${next}`);
        seen.push(...p.data.map((s) => nameOf.get(s.id)!));
        if (!p.pagination.has_more) break;
        next =
          by === 'cursor' ? `&cursor=${p.pagination.next_cursor!}` : `&offset=${p.pagination.next_offset!}`;
      }
      expect(seen).toEqual(all);
      const events = seen.map((name) => ITEMS.find((i) => i.name === name)!.event);
      expect(new Set(events).size).toBe(events.length);
    }
  });

  it('keeps cursors of one-per-event lists and full lists apart', async () => {
    const full = await page('limit=1');
    const res = await get(`distinct=event&limit=1&cursor=${full.pagination.next_cursor!}`);
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe('cursor');
  });

  it('writes CSV and GeoJSON pages of the same selection', async () => {
    const csv = await (await get('distinct=event&format=csv')).text();
    expect(csv.trim().split('\r\n').length).toBe(1 + 5);
    const geo = await (
      await get('distinct=event&format=geojson&layers=cyber')
    ).json<{
      features: { id: string }[];
    }>();
    expect(geo.features.map((f) => nameOf.get(f.id))).toEqual(['quakeB', leakTie()[0], 'outage']);
  });

  it.each([
    ['distinct=events', 'distinct'],
    ['distinct=', 'distinct'],
    ['distinct=event&updated_since=2026-11-01T00:00:00Z', 'distinct'],
  ])('refuses %s', async (query, path) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    const body = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e) => e.path)).toContain(path);
  });

  it('answers with signals whose events are the ones seeded', () => {
    expect([...eventOf.values()].sort()).toEqual(['flood', 'leak', 'outage', 'quake', 'strike']);
  });
});
