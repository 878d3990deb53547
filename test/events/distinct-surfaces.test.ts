import { describe, expect, it } from 'vitest';
import { withEventsApp, type EventItem } from './seed-events';

const recent = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();

/** A protest told three times (the strongest is not the newest) and a lone outage. */
const ITEMS: EventItem[] = [
  { name: 'protest1', event: 'protest', layer: 'political', score: 5, country: 'FR', published: recent(5) },
  { name: 'protest2', event: 'protest', layer: 'political', score: 8, country: 'FR', published: recent(4) },
  { name: 'protest3', event: 'protest', layer: 'political', score: 6, country: 'FR', published: recent(1) },
  { name: 'outage', event: 'outage', layer: 'cyber', score: 4, country: 'FR', published: recent(2) },
];

describe('distinct=event on the feed, the export and the widget', () => {
  const { app, nameOf } = withEventsApp(ITEMS, 'surfaces');

  const json = async (path: string) => {
    const res = await app.fetch(path);
    expect(res.status, await res.clone().text()).toBe(200);
    return await res.json<Record<string, unknown>>();
  };

  it('feed: one item per event, its strongest signal, newest first', async () => {
    const all = (await json('/api/v1/feed?format=json')) as { items: { id: string }[] };
    expect(all.items).toHaveLength(4);
    const feed = (await json('/api/v1/feed?format=json&distinct=event')) as { items: { id: string }[] };
    expect(feed.items.map((i) => nameOf.get(i.id.replace('urn:uuid:', '')))).toEqual(['outage', 'protest2']);
  });

  it('export: one row per event', async () => {
    const exported = (await json('/api/export?format=json&distinct=event')) as { data: { id: string }[] };
    expect(exported.data.map((s) => nameOf.get(s.id))).toEqual(['protest2', 'outage']);
    const csv = await (await app.fetch('/api/export?distinct=event')).text();
    expect(csv.trim().split('\r\n')).toHaveLength(3);
  });

  it('widget: one entry per event, on the page and in its data', async () => {
    const data = (await json('/embed/data?distinct=event')) as { items: { id: string }[] };
    expect(data.items.map((i) => nameOf.get(i.id))).toEqual(['outage', 'protest2']);
    const page = await (await app.fetch('/embed?distinct=event')).text();
    expect(page).toContain('/embed/data?distinct=event');
    expect(page).not.toContain('Report protest1');
  });

  it.each(['/api/v1/feed?distinct=all', '/api/export?distinct=1', '/embed/data?distinct=yes'])(
    'refuses %s',
    async (path) => {
      const res = await app.fetch(path);
      expect(res.status).toBe(400);
    },
  );
});
