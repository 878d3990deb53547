import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { DatabaseHandle } from '../../src/db/client';
import { webhooks } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { dispatchWebhooks, type DispatchOptions } from '../../src/webhooks/dispatch';
import { createWebhook, findWebhook, recentDeliveries } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { createKey, memoryLogger, testPglite } from '../support/harness';
import { startReceiver, type Receiver } from './receiver';

const HOUR = 3_600_000;
let counter = 0;
const signal = () => ({
  ...FIXTURE.kyivStrike,
  source_url: `https://wire.example.com/limits/${++counter}-${Date.now()}`,
});

/** Leases, budgets and the send-time guard of the dispatcher, on a real database and receiver. */
describe('dispatcher leases, budgets and send-time guard', () => {
  let database: DatabaseHandle;
  let receiver: Receiver;
  let shift = 0;
  const now = () => new Date(Date.now() + shift);
  const deps = (insecure = true) => ({
    db: database.db,
    config: loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: String(insecure) }),
    now,
    fetch: globalThis.fetch.bind(globalThis),
    log: memoryLogger(),
  });
  const run = (options: DispatchOptions = {}, insecure = true) =>
    dispatchWebhooks(deps(insecure), { settleMs: 0, timeoutMs: 5_000, ...options });
  const hook = async (path: string) => {
    const key = await createKey(database.db);
    return {
      key,
      row: (await createWebhook(database.db, key.id, { url: `${receiver.url}${path}` }, undefined))!,
    };
  };

  beforeAll(async () => {
    database = await testPglite();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await database.db.delete(webhooks);
    receiver.received.length = 0;
    shift = 0;
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.close();
  });

  it('skips a webhook another run holds, and takes over a lease left stale by a crashed run', async () => {
    const { key, row } = await hook('/leased');
    await ingestSignals(database.db, [signal()]);
    // A run that claimed it and then died: its lease still runs for an hour.
    await database.db
      .update(webhooks)
      .set({ leaseUntil: new Date(now().getTime() + HOUR) })
      .where(eq(webhooks.id, row.id));
    expect(await run()).toMatchObject({ webhooks: 0, deliveries: 0 });
    expect(receiver.received).toHaveLength(0);
    shift += HOUR + 1_000; // the lease has expired
    expect(await run()).toMatchObject({ webhooks: 1, deliveries: 1, succeeded: 1 });
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook/leased']);
    expect((await findWebhook(database.db, key.id, row.id))!.leaseUntil).toBeNull();
  });

  it('claims at most maxWebhooks per run, however many lanes claim at once; the rest wait for the next', async () => {
    for (const i of [1, 2, 3]) await hook(`/cap${i}`);
    await ingestSignals(database.db, [signal()]);
    expect(await run({ maxWebhooks: 2 })).toMatchObject({ webhooks: 2, deliveries: 2 });
    expect(receiver.received).toHaveLength(2);
    // The next run (uncapped) claims all three again; only the third has something to send.
    expect(await run()).toMatchObject({ webhooks: 3, deliveries: 1 });
    expect(new Set(receiver.received.map((r) => r.path))).toEqual(
      new Set(['/hook/cap1', '/hook/cap2', '/hook/cap3']),
    );
  });

  it('claims nothing once its time budget is spent, and leaves the work for the next run', async () => {
    await hook('/budget');
    await ingestSignals(database.db, [signal()]);
    expect(await run({ budgetMs: 0 })).toMatchObject({ webhooks: 0, deliveries: 0 });
    expect(receiver.received).toHaveLength(0);
    expect(await run()).toMatchObject({ webhooks: 1, deliveries: 1 });
  });

  it('checks the address again at send time: a loopback URL is refused once the insecure flag is off', async () => {
    const { key, row } = await hook('/guarded');
    await ingestSignals(database.db, [signal()]);
    expect(await run({}, false)).toMatchObject({ deliveries: 1, failed: 1, succeeded: 0 });
    expect(receiver.received).toHaveLength(0);
    expect((await recentDeliveries(database.db, row.id))[0]).toMatchObject({
      ok: false,
      error: 'blocked_address',
    });
    expect((await findWebhook(database.db, key.id, row.id))!.consecutiveFailures).toBe(1);
  });
});
