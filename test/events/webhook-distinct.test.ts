import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { webhooks } from '../../src/db/schema';
import type { CreateWebhook } from '../../src/webhooks/schemas';
import { createWebhook } from '../../src/webhooks/service';
import { backends, createKey, withTestDatabase, dispatchOnce } from '../support/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { rebuildEvents, seedEvents, type EventItem } from './seed-events';

let round = 0;
const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 6, minutes)).toISOString();

describe.each(backends)('distinct_events webhooks on $name', (backend) => {
  const database = withTestDatabase({ open: backend.open });
  const receivers: Receiver[] = [];
  const config = loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: 'true' });
  const run = () => dispatchOnce(database.db, config, { settleMs: 0, timeoutMs: 1_000 });
  async function hook(input: Omit<CreateWebhook, 'url'>) {
    const r = await startReceiver();
    receivers.push(r);
    const key = await createKey(database.db);
    await createWebhook(database.db, key.id, { url: r.url, ...input }, undefined);
    return r;
  }
  /** Ingests `items` as one batch (one ingest transaction), grouped into the events they name. */
  async function ingest(items: EventItem[], eventIds: Map<string, string>) {
    round += 1;
    const seeded = await seedEvents(database.db, items, `hook${round}`);
    // Items naming an event seeded earlier join it.
    for (const item of items) {
      const existing = eventIds.get(item.event);
      if (existing) {
        await database.db.execute(
          sql`UPDATE signals SET event_id = ${existing}::uuid WHERE id = ${seeded.ids.get(item.name)!}::uuid`,
        );
      } else eventIds.set(item.event, seeded.events.get(item.event)!);
    }
    await rebuildEvents(database.db, [...eventIds.values()]);
    return seeded.ids;
  }
  const delivered = (r: Receiver) => r.received.flatMap((x) => x.body.signals.map((s) => s.id));

  afterEach(async () => {
    await database.db.delete(webhooks);
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it("delivers an event's first matching signal, not its echoes, in one run and in later ones", async () => {
    const distinct = await hook({ distinct_events: true, layers: ['cyber'] });
    const plain = await hook({ layers: ['cyber'] });
    const events = new Map<string, string>();
    // The leak's first report is military (not matching); its first cyber report is leak2.
    const first = await ingest(
      [{ name: 'leak1', event: 'leak', layer: 'military', score: 6, published: at(0) }],
      events,
    );
    const second = await ingest(
      [{ name: 'leak2', event: 'leak', layer: 'cyber', score: 5, published: at(5) }],
      events,
    );
    const third = await ingest(
      [
        { name: 'leak3', event: 'leak', layer: 'cyber', score: 9, published: at(6) },
        { name: 'worm1', event: 'worm', layer: 'cyber', score: 4, published: at(7) },
      ],
      events,
    );
    await run();
    expect(delivered(distinct)).toEqual([second.get('leak2'), third.get('worm1')]);
    expect(delivered(plain)).toHaveLength(3);
    // A later echo of an event already delivered stays home; a new event goes out.
    const fourth = await ingest(
      [
        { name: 'leak4', event: 'leak', layer: 'cyber', score: 9.5, published: at(9) },
        { name: 'worm2', event: 'worm', layer: 'cyber', score: 8, published: at(10) },
        { name: 'flood1', event: 'flood', layer: 'cyber', score: 3, published: at(11) },
      ],
      events,
    );
    await run();
    expect(delivered(distinct)).toEqual([second.get('leak2'), third.get('worm1'), fourth.get('flood1')]);
    expect(delivered(plain)).toHaveLength(6);
    expect(first.size).toBe(1);
  });

  it('delivers the echo that first lifts its event to min_score, and none after it', async () => {
    const distinct = await hook({ distinct_events: true, min_score: 7 });
    const plain = await hook({ min_score: 7 });
    const events = new Map<string, string>();
    await ingest(
      [{ name: 'quake1', event: 'quake', layer: 'disaster', score: 6, published: at(20) }],
      events,
    );
    await run();
    expect(delivered(distinct)).toEqual([]);
    // A second outlet: corroboration lifts the event (every member's score) past 7.
    const echo = await ingest(
      [{ name: 'quake2', event: 'quake', layer: 'disaster', score: 6.4, published: at(25) }],
      events,
    );
    // Scores set outright: the corroboration term itself is the linker's to pin.
    await database.db
      .execute(sql`UPDATE signals SET significance_score = CASE WHEN id = ${echo.get('quake2')!}::uuid THEN 7.2 ELSE 6.8 END
      WHERE event_id = ${events.get('quake')!}::uuid`);
    await run();
    expect(delivered(distinct)).toEqual([echo.get('quake2')]);
    const later = await ingest(
      [{ name: 'quake3', event: 'quake', layer: 'disaster', score: 9, published: at(30) }],
      events,
    );
    await run();
    expect(delivered(distinct)).toEqual([echo.get('quake2')]);
    // The plain webhook judges each signal by its own score: quake2 (7.2) and quake3.
    expect(delivered(plain)).toEqual([echo.get('quake2'), later.get('quake3')]);
  });

  it('counts an event as delivered across a merge', async () => {
    const distinct = await hook({ distinct_events: true });
    const events = new Map<string, string>();
    const a = await ingest(
      [{ name: 'fireA', event: 'fireA', layer: 'disaster', score: 5, published: at(40) }],
      events,
    );
    await run();
    expect(delivered(distinct)).toEqual([a.get('fireA')]);
    // A second event is found to be the same fire: merged, its signals join the first.
    const b = await ingest(
      [{ name: 'fireB', event: 'fireB', layer: 'disaster', score: 5, published: at(41) }],
      events,
    );
    await database.db.execute(
      sql`UPDATE signals SET event_id = ${events.get('fireA')!}::uuid WHERE id = ${b.get('fireB')!}::uuid`,
    );
    await run();
    expect(delivered(distinct)).toEqual([a.get('fireA')]);
  });

  it('is recorded, shown and changeable on the webhook record', async () => {
    const key = await createKey(database.db);
    const row = await createWebhook(
      database.db,
      key.id,
      { url: 'http://127.0.0.1:9/x', distinct_events: true },
      undefined,
    );
    expect(row!.distinctEvents).toBe(true);
  });
});
