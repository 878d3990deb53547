import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { admin, backends, createKey, startTestApp, type TestApp, pushRssFeed } from '../support/harness';
import { startFakeLlm } from './fake-llm';

/**
 * The optional LLM grader on the real admin ingest path, against a loopback OpenAI-compatible
 * server: the kept item is re-graded within the guardrails and says so; the shell stays out.
 * Headlines are invented for this test.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const feed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Grader wire</title><link>https://grader.example/</link>
<item><title>Artillery shelling hits border town in Freedonia</title><description>Homes were damaged.</description>
  <link>https://grader.example/world/shelling</link><pubDate>Mon, 23 Nov 2026 08:00:00 GMT</pubDate></item>
<item><title>Watch: how the night unfolded</title><description>Video.</description>
  <link>https://grader.example/av/night</link><pubDate>Mon, 23 Nov 2026 08:05:00 GMT</pubDate></item>
</channel></rss>`;

describe('the LLM grader at ingest', () => {
  let database: DatabaseHandle;
  let app: TestApp;
  let key: string;
  let llm: Awaited<ReturnType<typeof startFakeLlm>>;

  beforeAll(async () => {
    llm = await startFakeLlm({
      current: () => ({
        status: 200,
        content: JSON.stringify({ layer: 'military', severity: 10, valence: 'crisis' }),
      }),
    });
    database = await backends[0]!.open();
    app = await startTestApp(database.db, {
      config: {
        BRIEF_LLM_URL: llm.url,
        BRIEF_LLM_MODEL: 'fake-model',
        // The fake LLM listens on loopback, which the outbound guard refuses otherwise.
        WEBHOOK_ALLOW_INSECURE: true,
      },
    });
    key = (await createKey(database.db, 'pro')).key;
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await llm?.close();
  });

  it('re-grades the kept item, raising its score by at most 2, and records it in the classification', async () => {
    const pushed = await pushRssFeed(app, 'Grader wire', 'https://grader.example/feed', feed);
    expect(pushed.status).toBe(200);
    const ingested = pushed.body as Json;
    // the shell was dropped by the gate and never shown to the LLM
    expect(ingested.accepted).toBe(1);
    expect(llm.asked).toHaveLength(1);
    const detail = await app.fetch(`/api/v1/signals/${ingested.ids[0]}`, { headers: { 'X-Api-Key': key } });
    const body = (await detail.json()) as Json;
    const llmNote = body.classification.llm;
    expect(llmNote).toMatchObject({ model: 'fake-model', graded: { layer: 'military', valence: 'crisis' } });
    expect(llmNote.graded.score).toBeLessThanOrEqual(llmNote.rules.score + 2);
    expect(llmNote.graded.score).toBeGreaterThan(llmNote.rules.score);
  });
});
