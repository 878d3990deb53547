import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { fixtureItems } from '../support/fixture';
import { createKey, startTestApp, type TestApp, closeAfterAll } from '../support/harness';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// The Node server on a real Postgres behind a relay we can cut: the database "goes away"
// while the server keeps running, then comes back on the same address.
describe.skipIf(!testDatabaseUrl())('database outage', () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  let app: TestApp;
  let key: string;

  const closing = closeAfterAll();
  beforeAll(async () => {
    scratch = closing(await createScratchDatabase(testDatabaseUrl()!), (it) => it.drop());
    const target = new URL(scratch.url);
    proxy = closing(await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }));
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    database = closing(await postgresDatabase(viaProxy.toString(), { migrate: true }));
    await ingestSignals(database.db, fixtureItems());
    key = (await createKey(database.db, 'pro')).key;
    app = closing(await startTestApp(database.db));
  });

  const signals = () => app.fetch('/api/v1/signals?limit=3', { headers: { 'X-Api-Key': key } });

  it('answers 503 problem+json with Retry-After while down, and recovers without a restart', async () => {
    expect((await signals()).status).toBe(200);

    await proxy.stop();
    for (const path of ['/api/v1/signals?limit=3', '/api/v1/health', '/api/v1/freshness']) {
      const res = await app.fetch(path, { headers: { 'X-Api-Key': key } });
      expect(res.status, path).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    }

    await proxy.start();
    const back = await signals();
    expect(back.status).toBe(200);
    expect((await back.json<{ data: unknown[] }>()).data).toHaveLength(3);
    expect((await app.fetch('/api/v1/health')).status).toBe(200);
  });
});
