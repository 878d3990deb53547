import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../src/db/schema';
import { flushUsage, MAX_PENDING_KEYS, recordUse } from '../../src/keys/usage';
import { createKey, withTestDatabase } from '../support/harness';

const T0 = new Date('2026-11-25T10:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

// The usage UPDATE fails for real while the column it writes is renamed away: a database that
// refuses the flush, as it does during an outage.
describe('key usage while the database refuses its writes', () => {
  const database = withTestDatabase();

  const breakWrites = () =>
    database.db.execute(sql`ALTER TABLE api_keys RENAME COLUMN requests_total TO requests_total_away`);
  const restoreWrites = () =>
    database.db.execute(sql`ALTER TABLE api_keys RENAME COLUMN requests_total_away TO requests_total`);

  const usage = async (id: string) => {
    const [row] = await database.db
      .select({ total: apiKeys.requestsTotal, last: apiKeys.lastUsedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, id));
    return row!;
  };

  it('keeps the uses of a failed flush and writes them with the next one', async () => {
    const { id } = await createKey(database.db);
    await recordUse(database.db, id, at(0));
    expect((await usage(id)).total).toBe(1);

    await breakWrites();
    const failed: Promise<void>[] = [];
    for (let i = 1; i <= 5; i++) failed.push(recordUse(database.db, id, at(i)) ?? Promise.resolve());
    await Promise.allSettled(failed);
    await flushUsage(database.db);
    await restoreWrites();
    expect((await usage(id)).total).toBe(1);

    await flushUsage(database.db);
    const after = await usage(id);
    expect(after.total).toBe(6);
    expect(after.last?.toISOString()).toBe(at(5).toISOString());
  });

  it(`keeps at most ${MAX_PENDING_KEYS} keys' uses; a key already kept goes on counting`, async () => {
    const kept = await createKey(database.db);
    const late = await createKey(database.db);

    await breakWrites();
    await recordUse(database.db, kept.id, at(10))?.catch(() => {});
    // Fill what is kept with keys that do not exist (their UPDATE touches no row).
    for (let i = 1; i < MAX_PENDING_KEYS; i++) recordUse(database.db, randomUUID(), at(10))?.catch(() => {});
    await flushUsage(database.db);
    recordUse(database.db, late.id, at(11))?.catch(() => {});
    recordUse(database.db, kept.id, at(12))?.catch(() => {});
    await flushUsage(database.db);
    await restoreWrites();

    await flushUsage(database.db);
    expect((await usage(kept.id)).total).toBe(2);
    expect((await usage(late.id)).total).toBe(0);
    // Past the outage a new key counts again.
    await recordUse(database.db, late.id, at(13));
    expect((await usage(late.id)).total).toBe(1);
  });
});
