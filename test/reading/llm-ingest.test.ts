import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { DatabaseHandle } from '../../src/db/client';
import { sources } from '../../src/db/schema';
import { nodeDeps } from '../../src/node-runtime';
import { pollSource } from '../../src/sources/poller';
import { memoryStore } from '../../src/store/memory';
import { startFeedServer } from '../sources/feed-server';
import { backends, createKey, startTestApp, type TestApp, pushRssFeed } from '../support/harness';
import { startFakeLlm } from './fake-llm';

/**
 * The optional LLM grader on the real ingest paths (the admin ingest and a poll), against a
 * loopback OpenAI-compatible server: the kept item is re-graded within the guardrails and says
 * so; the shell stays out.
 * Headlines are invented for this test.
 */
type Json = Record<string, any>;

const feed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Grader wire</title><link>https://grader.example/</link>
<item><title>Artillery shelling kills three in border town in Freedonia</title><description>Homes were damaged and roads cut.</description>
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
    const body = await detail.json<Json>();
    const llmNote = body.classification.llm;
    expect(llmNote).toMatchObject({ model: 'fake-model', graded: { layer: 'military', valence: 'crisis' } });
    expect(llmNote.graded.score).toBeLessThanOrEqual(llmNote.rules.score + 2);
    expect(llmNote.graded.score).toBeGreaterThan(llmNote.rules.score);
  });

  it('grades what a poll of the feed brings, the same way', async () => {
    const feeds = await startFeedServer({
      '/poll': {
        // Another town: the grader's cache (by text) does not answer for it.
        document: feed
          .replaceAll('grader.example/', 'grader.example/polled/')
          .replace('Freedonia', 'Sylvania'),
        type: 'application/rss+xml',
      },
    });
    try {
      const [row] = await database.db
        .insert(sources)
        .values({ name: 'Polled wire', connector: 'rss', url: `${feeds.url}/poll`, tier: 'core' })
        .returning();
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        WEBHOOK_ALLOW_INSECURE: 'true',
        BRIEF_LLM_URL: llm.url,
        BRIEF_LLM_MODEL: 'fake-model',
      });
      const asked = llm.asked.length;
      // The feed's items are dated Mon 23 Nov 2026: polled within the connector's age cut-off.
      const deps = nodeDeps(config, database.db, memoryStore(), {
        now: () => new Date('2026-11-23T09:00:00Z'),
      });
      expect(await pollSource(deps, row!, { force: true })).toMatchObject({ status: 'ok', items: 1 });
      expect(llm.asked.length).toBe(asked + 1);
      const stored = await database.db.query.signals.findFirst({
        where: (s) => eq(s.sourceUrl, 'https://grader.example/polled/world/shelling'),
      });
      expect(stored?.classification).toMatchObject({ llm: { model: 'fake-model' } });
    } finally {
      await feeds.close();
    }
  });
});
