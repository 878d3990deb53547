import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { ingestSignals } from '../../src/ingest/pipeline';
import { nodeDeps } from '../../src/node-runtime';
import { memoryStore } from '../../src/store/memory';
import { startDispatchTimer } from '../../src/webhooks/schedule';
import { createWebhook } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { createKey, memoryLogger, withTestDatabase, closeAfterAll } from '../support/harness';
import { startReceiver, type Receiver } from './receiver';

describe("the Node server's dispatch timer", () => {
  const database = withTestDatabase();
  const closing = closeAfterAll();
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = closing(await startReceiver());
  });

  it('runs the dispatcher on its interval until stopped', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: 'true' });
    const deps = nodeDeps(config, database.db, memoryStore(), { log: memoryLogger() });
    const key = await createKey(database.db);
    await createWebhook(database.db, key.id, { url: receiver.url }, undefined);
    await ingestSignals(database.db, [
      { ...FIXTURE.kyivStrike, source_url: 'https://wire.example.com/timer' },
    ]);
    const timer = startDispatchTimer(deps, 200);
    try {
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 15_000, interval: 100 });
    } finally {
      await timer.stop();
    }
    expect(receiver.received[0]!.body.signal_count).toBe(1);
  });
});
