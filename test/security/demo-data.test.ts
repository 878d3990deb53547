import { describe, expect, it } from 'vitest';
import { sources } from '../../src/db/schema';
import { DEMO_SOURCE_SUFFIX, generateDemoSignals } from '../../src/ingest/demo';
import { seedDemo } from '../../src/ingest/seed';
import { withTestDatabase } from '../support/harness';

const reserved = (url: string) => new URL(url).hostname.endsWith('.example');

describe('demo data is recognisable as demo', () => {
  it('every generated item names a demo source on a reserved .example domain', () => {
    const items = generateDemoSignals({ count: 3000, now: new Date('2026-11-20T12:00:00Z'), seed: 7 });
    expect(items).toHaveLength(3000);
    const outlets = new Map(items.map((item) => [item.source.name, item.source]));
    // Every outlet of the table shows up in a batch this size.
    expect(outlets.size).toBeGreaterThan(20);
    for (const item of items) {
      expect(reserved(item.source_url), item.source_url).toBe(true);
    }
    for (const source of outlets.values()) {
      expect(source.name.endsWith(DEMO_SOURCE_SUFFIX), source.name).toBe(true);
      expect(reserved(source.url), source.url).toBe(true);
    }
  });

  describe('once seeded', () => {
    const database = withTestDatabase();

    it('every source in the database carries the marker and a reserved domain', async () => {
      const result = await seedDemo(database.db, { count: 300, now: new Date(), seed: 3 });
      expect(result.accepted).toBe(300);
      const rows = await database.db.select().from(sources);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.name).toMatch(/ \(demo\)$/);
        expect(reserved(row.url!), row.url!).toBe(true);
      }
    });
  });
});
