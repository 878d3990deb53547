import { describe, expect, it } from 'vitest';
import { withEventsApp, type EventItem } from './seed-events';

const NOW = new Date('2026-11-21T12:00:00Z');
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

/**
 * A blackout told by five outlets (one event, five signals) and two single reports, all in the
 * brief's window: counted by signals the blackout would dominate five to one.
 */
const ITEMS: EventItem[] = [
  ...[1, 2, 3, 4, 5].map((n) => ({
    name: `blackout${n}`,
    event: 'blackout',
    layer: 'cyber',
    score: 5 + n / 2,
    country: 'EE',
    published: ago(n / 2),
  })),
  { name: 'riot', event: 'riot', layer: 'political', score: 6, country: 'KE', published: ago(1) },
  { name: 'spill', event: 'spill', layer: 'disaster', score: 4, country: 'NG', published: ago(2) },
];

describe('analytics count events, not echoes', () => {
  const { app, nameOf } = withEventsApp(ITEMS, 'analytics', {
    key: 'pro',
    timeout: 180_000,
    deps: { now: () => NOW },
  });

  it('the brief cites one signal per event, its strongest, and counts events beside signals', async () => {
    const res = await app.fetch('/api/v1/brief', { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(200);
    const brief = (await res.json()) as {
      headline: string;
      executive_summary: string;
      signal_ids: string[];
      numbers: { signal_count: number; event_count: number };
    };
    expect(brief.numbers).toMatchObject({ signal_count: 7, event_count: 3 });
    expect(brief.executive_summary).toContain('3 events were reported in 7 signals');
    const cited = brief.signal_ids.map((id) => nameOf.get(id));
    // The blackout's weaker reports are echoes: only blackout5 (7.5) may stand for it.
    expect(cited.filter((name) => name?.startsWith('blackout'))).toEqual(['blackout5']);
    expect(cited[0]).toBe('blackout5');
  });
});
