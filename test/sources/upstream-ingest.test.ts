import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSourceItems, type UpstreamSource } from '../../src/ingest/upstream';
import { seedCatalogue, sourceByName } from '../../src/sources/rows';
import { CATALOGUE } from '../../src/sources/catalogue';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { createWebhook } from '../../src/webhooks/service';
import { backends, createKey, dispatchOnce } from '../support/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { byId, context, fixture, parse } from './support';

/** `ingestSourceItems` below the HTTP layer: the poll window and what a revision does for webhooks. */
describe.each(backends)('upstream ingest on $name', (backend) => {
  let database: DatabaseHandle;
  let source: UpstreamSource;
  let receiver: Receiver;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey(),
  });
  const dispatch = () => dispatchOnce(database.db, config, { settleMs: 0, timeoutMs: 2_000 });
  const delivered = () => receiver.received.flatMap((r) => r.body.signals.map((s) => s.id));
  const quakes = (doc = fixture('usgs.geojson')) => parse('usgs', doc, context('core'));

  beforeAll(async () => {
    database = await backend.open();
    expect(await seedCatalogue(database.db)).toBe(CATALOGUE.length);
    expect(await seedCatalogue(database.db)).toBe(0);
    const row = (await sourceByName(database.db, 'USGS significant earthquakes (past week)'))!;
    expect(row).toMatchObject({ connector: 'usgs', tier: 'core', intervalMinutes: 15, enabled: true });
    source = { id: row.id, name: row.name, tier: 'core', url: row.url };
    receiver = await startReceiver();
  }, 180_000); // opening a database and a server is slow on a loaded machine
  afterAll(async () => {
    await receiver?.close();
    await database?.close();
  });

  it('a poll window skips old items; a backfill keeps them', async () => {
    const items = quakes();
    // The fixture's quakes were last updated between 2025-11-08 and 2025-11-13: a 48-hour window
    // from 2025-11-14 keeps the recently updated ones (an old quake revised lately counts as recent).
    const now = new Date('2025-11-14T00:00:00Z');
    const recent = items.filter((i) => Date.parse(i.upstream_updated_at!) > now.getTime() - 48 * 3_600_000);
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(items.length);
    const polled = await ingestSourceItems(database.db, source, items, { now, maxAgeHours: 48 });
    expect(polled).toMatchObject({ accepted: recent.length, updated: 0, duplicates: 0, rejected: 0 });
    const backfill = await ingestSourceItems(database.db, source, items);
    expect(backfill).toMatchObject({
      accepted: items.length - recent.length,
      duplicates: recent.length,
      rejected: 0,
    });
    // ids in document order: the accepted ones, skipping the duplicates.
    expect(backfill.ids).toHaveLength(items.length - recent.length);
  });

  it('rejects an invalid item on its own, with its index and a message', async () => {
    const [first] = quakes();
    const bad = {
      ...first!,
      external_ids: ['usgs:broken'],
      source_url: 'ftp://nope',
      significance_score: 42,
    };
    const result = await ingestSourceItems(database.db, source, [first!, bad]);
    expect(result).toMatchObject({ accepted: 0, duplicates: 1, rejected: 1 });
    expect(result.errors).toEqual([{ index: 1, message: expect.stringContaining('significance_score') }]);
  });

  it('a revision is not delivered again by webhooks; a new quake is', async () => {
    const key = await createKey(database.db);
    await createWebhook(database.db, key.id, { url: receiver.url }, config.WEBHOOK_ENCRYPTION_KEY);
    const items = quakes();
    const fresh = {
      ...items[0]!,
      external_ids: ['usgs:new1'],
      source_url: 'https://earthquake.usgs.gov/x/new1',
    };
    const first = await ingestSourceItems(database.db, source, [fresh]);
    expect(first.accepted).toBe(1);
    await dispatch();
    expect(delivered()).toEqual(first.ids);

    const revised = { ...fresh, significance_score: 9.9, upstream_updated_at: '2030-01-01T00:00:00.000Z' };
    const again = await ingestSourceItems(database.db, source, [revised]);
    expect(again).toMatchObject({ accepted: 0, updated: 1, ids: first.ids });
    await dispatch();
    expect(delivered()).toEqual(first.ids); // nothing new went out

    const another = {
      ...fresh,
      external_ids: ['usgs:new2'],
      source_url: 'https://earthquake.usgs.gov/x/new2',
    };
    const second = await ingestSourceItems(database.db, source, [another]);
    await dispatch();
    expect(delivered()).toEqual([...first.ids, ...second.ids]);
  });

  it('an item seen under a second id (USGS ids overlap) is the same signal', async () => {
    const item = byId(quakes(), 'usgs:us7000tst1');
    const aliased = { ...item, external_ids: ['usgs:us7000tst1', 'usgs:at0000alias'] };
    expect(await ingestSourceItems(database.db, source, [aliased])).toMatchObject({
      accepted: 0,
      duplicates: 1,
    });
  });
});
