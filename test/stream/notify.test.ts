import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { nodeDeps, serveApp } from '../../src/node-runtime';
import { memoryStore } from '../../src/store/memory';
import { ADMIN_TOKEN, closeAfterAll, createKey, memoryLogger } from '../support/harness';
import { createScratchDatabase, testDatabaseUrl } from '../support/services';
import { openSse } from '../support/sse';

// Two servers on one Postgres, as two processes would be: each with its own pool and its own
// hub. A write through one reaches a stream on the other only through LISTEN/NOTIFY.
describe.skipIf(!testDatabaseUrl())('live stream across processes (Postgres LISTEN/NOTIFY)', () => {
  const closing = closeAfterAll();

  it('a signal written by another process reaches an open stream', async () => {
    const scratch = closing(await createScratchDatabase(testDatabaseUrl()!), (s) => s.drop());
    const config = loadConfig({ ADMIN_TOKEN, LOG_LEVEL: 'silent' });
    const a = closing(await postgresDatabase(scratch.url, { migrate: true }));
    const b = closing(await postgresDatabase(scratch.url));
    const server = closing(
      await serveApp(nodeDeps(config, a.db, memoryStore(), { log: memoryLogger() }), 0, '127.0.0.1'),
    );
    const { key } = await createKey(a.db, 'pro');
    const reader = await openSse(`http://127.0.0.1:${server.port}/api/v1/stream`, { 'X-Api-Key': key });
    expect(reader.response.status).toBe(200);
    // The other "process": a direct write, as the CLI or another server's poller makes it.
    await ingestSignals(b.db, [
      {
        threat_layer: 'cyber',
        significance_score: 6,
        signal_valence: 'crisis',
        title: 'Ransomware hits a port operator in Rotterdam',
        content_display: 'A port operator in Rotterdam reported a ransomware attack.',
        country_codes: ['NL'],
        published_at: new Date(Date.now() - 60_000).toISOString(),
        source_url: 'https://other-process.example.com/rotterdam',
        source: { name: 'Other Process Wire' },
      },
    ]);
    const [event] = await reader.waitFor(1);
    reader.close();
    expect(event!.event).toBe('signal');
    expect(JSON.parse(event!.data)).toMatchObject({
      source_url: 'https://other-process.example.com/rotterdam',
    });
  });
});
