/**
 * The webhook Worker itself, bundled by wrangler and run in workerd (Miniflare): its
 * `scheduled` handler dispatches from the CI Postgres, reached through the Neon driver and the
 * test WebSocket bridge, to a receiver on loopback.
 */
import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import { migrate } from 'drizzle-orm/neon-serverless/migrator';
import { Miniflare } from 'miniflare';
import { beforeAll, describe, expect, it } from 'vitest';
import { neonDatabase, type DatabaseHandle } from '../../src/db/client';
import { MIGRATIONS_FOLDER } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { createWebhook, findWebhook } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { closeAfterAll, createKey, ageIngests } from '../support/harness';
import { configureNeon, startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';
import { buildWorker } from '../worker/workerd';
import { startReceiver, type Receiver } from './receiver';

const SECRET = 'workerd-secret-0123456789';

describe.skipIf(!testDatabaseUrl())('the webhook Worker in workerd', () => {
  let bridge: NeonBridge;
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;
  let receiver: Receiver;
  let mf: Miniflare;
  let outdir: string;
  const encryptionKey = generateEncryptionKey();

  const closing = closeAfterAll();
  beforeAll(async () => {
    const build = buildWorker('cron');
    outdir = closing(build.dir, (dir) => rmSync(dir, { recursive: true, force: true }));
    bridge = closing(await startNeonBridge());
    configureNeon(bridge.port);
    scratch = closing(await createScratchDatabase(testDatabaseUrl()!), (it) => it.drop());
    database = closing(neonDatabase(scratch.url));
    await migrate(database.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    receiver = closing(await startReceiver());
    mf = closing(
      new Miniflare({
        modules: [{ type: 'ESModule', path: build.main }],
        modulesRoot: outdir,
        compatibilityDate: '2026-04-20',
        compatibilityFlags: ['nodejs_compat'],
        bindings: {
          DATABASE_URL: scratch.url,
          NEON_WS_PROXY: `localhost:${bridge.port}/v1`,
          WEBHOOK_ENCRYPTION_KEY: encryptionKey,
          WEBHOOK_ALLOW_INSECURE: 'true',
          LOG_LEVEL: 'warn',
        },
      }),
      (it) => it.dispose(),
    );
    await mf.ready;
  }, 120_000);

  it('delivers new matching signals, signed, from its scheduled handler', async () => {
    const key = await createKey(database.db);
    const webhook = (await createWebhook(
      database.db,
      key.id,
      { url: receiver.url, secret: SECRET, layers: ['cyber'] },
      encryptionKey,
    ))!;
    const stamp = Date.now();
    const ingested = await ingestSignals(database.db, [
      { ...FIXTURE.lyonHospital, source_url: `https://wire.example.com/workerd/${stamp}-1` },
      { ...FIXTURE.kyivStrike, source_url: `https://wire.example.com/workerd/${stamp}-2` },
    ]);
    expect(ingested.accepted).toBe(2);
    // The dispatcher reads only rows older than its settling margin.
    await ageIngests(database.db);

    const worker = await mf.getWorker();
    await worker.scheduled({ cron: '*/5 * * * *' });

    expect(receiver.received).toHaveLength(1);
    const { raw, headers, body } = receiver.received[0]!;
    expect(body).toMatchObject({ webhook_id: webhook.id, signal_count: 1 });
    expect(headers['x-service-signature-256']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
    );
    const state = (await findWebhook(database.db, key.id, webhook.id))!;
    expect(state).toMatchObject({ lastStatus: 200, consecutiveFailures: 0, leaseUntil: null });

    await worker.scheduled({ cron: '*/5 * * * *' });
    expect(receiver.received).toHaveLength(1);
  });
});
