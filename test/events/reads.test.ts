import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { backends, withTestApp } from '../support/harness';
import { rebuildEvents, seedEvents, type EventItem } from './seed-events';

/** A storm told five times, a lone fire, and a cable cut that is merged into the storm's event. */
const ITEMS: EventItem[] = [
  {
    name: 'storm1',
    event: 'storm',
    layer: 'disaster',
    score: 6,
    country: 'PH',
    published: '2026-11-20T01:00:00Z',
  },
  {
    name: 'storm2',
    event: 'storm',
    layer: 'disaster',
    score: 8,
    country: 'PH',
    published: '2026-11-20T02:00:00Z',
  },
  {
    name: 'storm3',
    event: 'storm',
    layer: 'disaster',
    score: 7,
    country: 'VN',
    published: '2026-11-20T03:00:00Z',
  },
  {
    name: 'storm4',
    event: 'storm',
    layer: 'disaster',
    score: 5,
    country: 'PH',
    published: '2026-11-20T04:00:00Z',
  },
  {
    name: 'storm5',
    event: 'storm',
    layer: 'disaster',
    score: 4,
    country: 'PH',
    published: '2026-11-20T05:00:00Z',
  },
  {
    name: 'fire',
    event: 'fire',
    layer: 'disaster',
    score: 5.5,
    country: 'AU',
    published: '2026-11-19T05:00:00Z',
  },
  {
    name: 'cable1',
    event: 'cable',
    layer: 'supply_chain',
    score: 6.5,
    country: 'PH',
    published: '2026-11-20T06:00:00Z',
  },
  {
    name: 'cable2',
    event: 'cable',
    layer: 'supply_chain',
    score: 3,
    country: 'PH',
    published: '2026-11-20T07:00:00Z',
  },
];

describe.each(backends)('GET /api/v1/events/{id} on $name', (backend) => {
  let ids: Map<string, string>;
  let events: Map<string, string>;
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      ({ ids, events } = await seedEvents(db, ITEMS, 'reads'));
      // The cable cut turns out to be part of the storm: its signals move, its id is kept as a pointer.
      const [storm, cable] = [events.get('storm')!, events.get('cable')!];
      await db.execute(sql`UPDATE signals SET event_id = ${storm}::uuid WHERE event_id = ${cable}::uuid`);
      await rebuildEvents(db, [storm]);
      await db.execute(sql`INSERT INTO events (id, threat_layer, first_seen_at, last_seen_at, max_score, merged_into)
      VALUES (${cable}::uuid, 'supply_chain', now(), now(), 0, ${storm}::uuid)`);
    },
    key: 'pro',
  });

  type Signal = { id: string };
  type Event = {
    id: string;
    threat_layer: string;
    country_codes: string[];
    first_reported_at: string;
    last_reported_at: string;
    severity: number;
    corroboration: number;
    signal_count: number;
    strongest_signal: Signal;
    members: {
      data: Signal[];
      pagination: { has_more: boolean; next_offset: number | null; next_cursor: string | null };
    };
  };
  const get = (path: string, headers: Record<string, string> = { 'X-Api-Key': app.key }) =>
    app.fetch(path, { headers, redirect: 'manual' });
  const event = async (path: string) => {
    const res = await get(path);
    expect(res.status, await res.clone().text()).toBe(200);
    return await res.json<Event>();
  };
  const nameOf = (id: string) => [...ids].find(([, v]) => v === id)?.[0];
  const stormOrder = ['storm2', 'storm3', 'cable1', 'storm1', 'storm4', 'storm5', 'cable2'];

  it('answers the event with its reports, countries, severity, corroboration and strongest signal', async () => {
    const storm = await event(`/api/v1/events/${events.get('storm')!}`);
    expect(storm).toMatchObject({
      id: events.get('storm'),
      threat_layer: 'disaster',
      country_codes: ['PH', 'VN'],
      first_reported_at: '2026-11-20T01:00:00.000Z',
      last_reported_at: '2026-11-20T07:00:00.000Z',
      severity: 8,
      corroboration: 7,
      signal_count: 7,
    });
    expect(nameOf(storm.strongest_signal.id)).toBe('storm2');
    expect(storm.members.data.map((s) => nameOf(s.id))).toEqual(stormOrder);
    expect(storm.members.pagination).toMatchObject({ has_more: false, next_offset: null, next_cursor: null });
  });

  it.each(['cursor', 'offset'] as const)('pages its members by %s, each once, in rank order', async (by) => {
    const seen: string[] = [];
    let next = '';
    for (let guard = 0; guard < 10; guard++) {
      const page = await event(`/api/v1/events/${events.get('storm')!}?limit=3${next}`);
      // The strongest signal stays the event's on every page.
      expect(nameOf(page.strongest_signal.id)).toBe('storm2');
      seen.push(...page.members.data.map((s) => nameOf(s.id)!));
      if (!page.members.pagination.has_more) break;
      next =
        by === 'cursor'
          ? `&cursor=${page.members.pagination.next_cursor!}`
          : `&offset=${page.members.pagination.next_offset!}`;
    }
    expect(seen).toEqual(stormOrder);
  });

  it('redirects a merged event to the one it joined, keeping the query', async () => {
    const res = await get(`/api/v1/events/${events.get('cable')!}?limit=2`);
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`/api/v1/events/${events.get('storm')!}?limit=2`);
    // Followed, it is the surviving event.
    const followed = await app.fetch(`/api/v1/events/${events.get('cable')!}?limit=2`, {
      headers: { 'X-Api-Key': app.key },
    });
    expect(followed.status).toBe(200);
    expect((await followed.json<Event>()).id).toBe(events.get('storm'));
  });

  it('follows a chain of merges in one redirect', async () => {
    const [storm, cable] = [events.get('storm')!, events.get('cable')!];
    const older = crypto.randomUUID();
    await app.db
      .execute(sql`INSERT INTO events (id, threat_layer, first_seen_at, last_seen_at, max_score, merged_into)
      VALUES (${older}::uuid, 'supply_chain', now(), now(), 0, ${cable}::uuid)`);
    const res = await get(`/api/v1/events/${older}`);
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`/api/v1/events/${storm}`);
  });

  it('answers 404 for an unknown id, and for an event whose every signal was retracted', async () => {
    const unknown = await get(`/api/v1/events/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json<{ code: string }>()).code).toBe('not_found');
    await app.db.execute(sql`UPDATE signals SET retracted_at = now() WHERE id = ${ids.get('fire')!}::uuid`);
    expect((await get(`/api/v1/events/${events.get('fire')!}`)).status).toBe(404);
  });

  it.each([
    ['/api/v1/events/not-a-uuid', 'id'],
    ['/api/v1/events/{storm}?limit=0', 'limit'],
    ['/api/v1/events/{storm}?limit=101', 'limit'],
    ['/api/v1/events/{storm}?offset=10001', 'offset'],
    ['/api/v1/events/{storm}?cursor=abc&offset=0', 'cursor'],
    ['/api/v1/events/{storm}?cursor=%21%21', 'cursor'],
  ])('refuses %s naming %s', async (path, field) => {
    const res = await get(path.replace('{storm}', events.get('storm')!));
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { path: string }[] }>()).errors.map((e) => e.path)).toContain(field);
  });

  it("refuses another event's cursor", async () => {
    const storm = await event(`/api/v1/events/${events.get('storm')!}?limit=1`);
    const res = await get(
      `/api/v1/events/${events.get('fire')!}?cursor=${storm.members.pagination.next_cursor!}`,
    );
    expect(res.status).toBe(400);
  });

  it('needs a key, like a signal', async () => {
    const res = await get(`/api/v1/events/${events.get('storm')!}`, {});
    expect(res.status).toBe(401);
  });
});
