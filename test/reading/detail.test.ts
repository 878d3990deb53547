import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client';
import { readNewsItem } from '../../src/reading/news';
import { admin, backends, json, withTestApp, pushRssFeed } from '../support/harness';

/**
 * A news feed through the admin ingest on the real app: the signal detail carries the reading
 * (`classification`) and `/api/v1/sources` counts the items left out for their language.
 * Headlines are invented for this test.
 */
type Json = Record<string, any>;

const feed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Test wire</title><link>https://wire.example/</link>
<item><title>Car bomb kills 14 at market in Mosul, officials say</title>
  <description>At least 30 people were wounded in the blast.</description>
  <link>https://wire.example/world/mosul-market</link><pubDate>Mon, 23 Nov 2026 08:00:00 GMT</pubDate></item>
<item><title>Watch: how the night unfolded</title><description>Video.</description>
  <link>https://wire.example/av/night</link><pubDate>Mon, 23 Nov 2026 08:05:00 GMT</pubDate></item>
<item><title>বন্যায় বহু গ্রাম প্লাবিত, হাজারো মানুষ পানিবন্দি</title><description>নদীর পানি বিপৎসীমার ওপরে।</description>
  <link>https://wire.example/bn/flood</link><pubDate>Mon, 23 Nov 2026 08:10:00 GMT</pubDate></item>
</channel></rss>`;

describe.each(backends)('news reading on the signal and the source on $name', (backend) => {
  const app = withTestApp({ open: backend.open, key: 'pro', timeout: 180_000 });

  const get = async (path: string) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    return { status: res.status, body: await res.json<Json>() };
  };

  it('stores the classification at ingest and serves it in the detail view', async () => {
    const pushed = await pushRssFeed(app, 'Test wire', 'https://wire.example/feed', feed);
    expect(pushed.status).toBe(200);
    const ingested = pushed.body as Json;
    // the video shell is not an event; the Bengali item is in a language without rules and names no country
    expect(ingested.accepted).toBe(1);
    const detail = await get(`/api/v1/signals/${ingested.ids[0]}`);
    expect(detail.status).toBe(200);
    // what the reader reads of the item is what ingest stored and the detail view serves
    const read = readNewsItem({
      title: 'Car bomb kills 14 at market in Mosul, officials say',
      summary: 'At least 30 people were wounded in the blast.',
      link: 'https://wire.example/world/mosul-market',
      language: null,
      tier: 'core',
    }).reading;
    expect(detail.body).toMatchObject({ threat_layer: read.layer, country_codes: ['IQ'] });
    const c = detail.body.classification;
    expect(c).toMatchObject({
      version: 2,
      layer: read.layer,
      kind: read.kind,
      read_as: 'en',
      casualties: { dead: 14, hurt: 30 },
      valence: read.valence,
      confidence: read.confidence,
    });
    // the score is the sum of its terms
    const t = c.terms;
    expect(detail.body.significance_score).toBeCloseTo(
      t.base + t.casualties + t.scope + t.hedge + t.model + t.tier,
      5,
    );
    // the fact rules name the kind whatever layer the model reads
    expect(c.matched).toContain('kind:mass_casualty_attack');
  });

  it('counts items in an unread language in the source health', async () => {
    const sources = await get('/api/v1/sources');
    expect(sources.status).toBe(200);
    const wire = (sources.body.data as Json[]).find((s) => s.name === 'Test wire');
    expect(wire?.unread_language).toBe(1);
  });

  it('leaves classification null for signals that were not read from text', async () => {
    const res = await app.fetch(
      '/api/v1/admin/signals',
      admin(
        json([
          {
            threat_layer: 'disaster',
            significance_score: 5,
            signal_valence: 'crisis',
            content_display: 'M 6.1 earthquake near the coast',
            country_codes: ['CL'],
            published_at: '2026-11-23T09:00:00Z',
            source_url: 'https://quakes.example/e1',
            source: { name: 'Quake feed' },
          },
        ]),
      ),
    );
    const body = await res.json<Json>();
    expect(body, JSON.stringify(body)).toMatchObject({ accepted: 1 });
    const [row] = await queryRows<{ id: string }>(
      app.db,
      sql`SELECT id FROM signals WHERE source_url = 'https://quakes.example/e1'`,
    );
    const id = row!.id;
    expect((await get(`/api/v1/signals/${id}`)).body.classification).toBeNull();
  });
});
