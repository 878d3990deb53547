import { describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/ingest/seed';
import { withTestApp } from '../support/harness';

const NOW = new Date('2026-11-22T06:00:00Z');

/** The embedded default's demo data must give every analytics endpoint something to say. */
describe('analytics on the demo data', () => {
  const app = withTestApp({
    seed: async (db) => {
      await seedDemo(db, { now: NOW });
    },
    key: 'pro',
    timeout: 300_000,
    deps: { now: () => NOW },
  });

  const get = async (path: string) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as any;
  };

  it('trending shows the recent bursts as spikes', async () => {
    const body = await get('/api/v1/trending');
    expect(body.countries).toHaveLength(8);
    expect(body.layers).toHaveLength(8);
    // Counted by events, not echoes: the demo tells each story through several outlets, so a
    // country's burst is a handful of events (it was some twenty signals).
    const top = body.countries[0];
    expect(top.spike_ratio).toBeGreaterThan(5);
    expect(top.recent_count).toBeGreaterThan(5);
    expect(top.recent_count).toBeGreaterThan(10 * top.expected_count);
    const layer = body.layers[0];
    expect(layer.spike_ratio).toBeGreaterThan(10);
    expect(layer.recent_count).toBeGreaterThan(20);
  });

  it('compound crises exist in both windows, each on 2+ layers', async () => {
    const body = await get('/api/v1/compound-crises');
    // Both windows, named: a loop over an empty list would assert nothing.
    expect(body.data.map((w: { window_type: string }) => w.window_type).sort()).toEqual(['acute', 'chronic']);
    for (const window of body.data) {
      // Fewer than when echoes counted (layers need 3 events now, not 3 reports), and fewer again
      // since linking folds same-kind reports of one country and day that contradict nothing
      // (src/events/match.ts): the demo's stories make at least one compound crisis per window.
      expect(window.data.length).toBeGreaterThanOrEqual(1);
      for (const crisis of window.data) {
        expect(crisis.layers.length).toBeGreaterThanOrEqual(2);
        expect(crisis.layers.every((l: { severity: number }) => l.severity >= 5)).toBe(true);
      }
    }
  });

  it('clusters group related stories: each top cluster’s lead entity runs through most of it, and the leads differ', async () => {
    const body = await get('/api/v1/clusters');
    expect(body.data.length).toBeGreaterThan(10);
    const leads = body.data.slice(0, 10).map((c: any) => {
      // Clusters count events, and the demo tells each story through several outlets (one event):
      // a top cluster still gathers several distinct events.
      expect(c.signal_count).toBeGreaterThanOrEqual(3);
      expect(c.top_entities[0].signal_count / c.signal_count).toBeGreaterThan(0.5);
      return `${c.threat_layer}:${c.top_entities[0].name}`;
    });
    expect(new Set(leads).size).toBeGreaterThanOrEqual(8);
  });

  it('the brief, entity view, snapshots, sources and stats all have content', async () => {
    const brief = await get('/api/v1/brief');
    expect(brief.generator).toBe('heuristic');
    expect(brief.active_theaters).toHaveLength(5);
    expect(brief.emerging_threats.length).toBeGreaterThan(0);
    expect(brief.key_entities.length).toBeGreaterThan(0);
    const entity = await get(`/api/v1/entity?name=${encodeURIComponent(brief.key_entities[0].name)}`);
    expect(entity.total_signals).toBeGreaterThan(10);
    expect(entity.graph.edges.length).toBeGreaterThan(2);
    expect(entity.timeline).toHaveLength(31);
    expect((await get('/api/v1/snapshots')).data).toHaveLength(100);
    expect((await get('/api/v1/sources')).data.length).toBeGreaterThan(10);
    const stats = await get('/api/v1/stats');
    expect(stats.signals.total).toBe(6000);
    expect(stats.languages.count).toBeGreaterThan(3);
  });
});
