import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import type { ConnectorName } from '../../src/sources/types';
import { admin, backends, withTestApp } from '../support/harness';
import { context, fixture, parse } from './support';

/**
 * Every connector end to end through `POST /api/v1/admin/sources/:connector/ingest` on the real
 * app: the fixture is ingested, readable with filters, re-ingests as duplicates, a
 * revised copy (the fixture text edited as upstream would) updates one signal in place and
 * shows up in `updated_since` sync.
 */
type Json = Record<string, any>;
const editJson = (document: string, edit: (doc: Json) => void) => {
  const doc = JSON.parse(document) as Json;
  edit(doc);
  return JSON.stringify(doc);
};
const once = (document: string, from: string, to: string) => {
  expect(document.includes(from)).toBe(true);
  return document.replace(from, to);
};

interface Case {
  connector: ConnectorName;
  file: string;
  /** Signals the fixture yields (pinned by the connector's own tests). */
  count: number;
  /** Items repeating an earlier one of the same document (a news link under two fragments). */
  repeats?: number;
  layer: string;
  /** The fixture as upstream would serve it after revising one item. */
  revise: (document: string) => string;
  /** What the revised signal shows. */
  revised: (signal: Json) => void;
}

/** News layers are the classification rules' call: read them from the parse, not pinned here. */
function news(connector: 'rss' | 'gdelt', file: string) {
  const items = parse(connector, fixture(file), context(connector === 'gdelt' ? 'discovered' : 'community'));
  const count = new Set(items.map((i) => i.source_url)).size;
  return { connector, file, count, repeats: items.length - count, layer: items[0]!.threat_layer };
}

const cases: Case[] = [
  {
    connector: 'usgs',
    file: 'usgs.geojson',
    count: 6,
    layer: 'disaster',
    revise: (d) =>
      editJson(d, (doc) => {
        const p = doc.features[0].properties;
        p.mag = 7.1;
        p.title = 'M 7.1 - 40 km S of Test Valley, Afghanistan';
        p.updated += 3_600_000;
      }),
    revised: (s) => {
      expect(s.title).toBe('M 7.1 - 40 km S of Test Valley, Afghanistan');
      expect(s.signal_valence).toBe('update');
    },
  },
  {
    connector: 'gdacs',
    file: 'gdacs.xml',
    count: 5,
    layer: 'disaster',
    revise: (d) =>
      once(d, 'datemodified>Thu, 20 Nov 2025 09:00:00 GMT<', 'datemodified>Thu, 20 Nov 2025 11:00:00 GMT<'),
    revised: (s) => expect(s.title).toContain('Test Trench off Japan'),
  },
  {
    connector: 'eonet',
    file: 'eonet.json',
    count: 3,
    layer: 'disaster',
    revise: (d) =>
      editJson(d, (doc) => {
        doc.events[0].closed = '2025-11-10T00:00:00Z';
      }),
    revised: (s) => {
      expect(s.title).toBe('Typhoon Testwind');
      expect(s.signal_valence).toBe('resolution');
    },
  },
  {
    connector: 'nws',
    file: 'nws.geojson',
    count: 1,
    layer: 'disaster',
    revise: (d) =>
      editJson(d, (doc) => {
        const p = doc.features[0].properties;
        p.sent = '2026-08-09T16:00:00-04:00';
        p.headline = 'Heat Advisory extended until August 11 at 7:00PM EDT by NWS Test Office';
      }),
    revised: (s) =>
      expect(s.title).toBe('Heat Advisory extended until August 11 at 7:00PM EDT by NWS Test Office'),
  },
  {
    connector: 'cisa-kev',
    file: 'cisa-kev.json',
    count: 3,
    layer: 'cyber',
    // KEV has no per-entry time: a changed fact (now used by ransomware) is the revision.
    revise: (d) =>
      editJson(d, (doc) => {
        doc.vulnerabilities[0].knownRansomwareCampaignUse = 'Known';
      }),
    revised: (s) => {
      expect(s.title).toContain('CVE-2025-90001');
      expect(s.significance_score).toBe(8);
    },
  },
  {
    connector: 'nvd',
    file: 'nvd.json',
    count: 4,
    layer: 'cyber',
    revise: (d) =>
      editJson(d, (doc) => {
        doc.vulnerabilities[0].cve.lastModified = '2026-11-01T10:00:00.000';
      }),
    revised: (s) => expect(s.title).toContain('CVE-2025-91001'),
  },
  {
    connector: 'reliefweb',
    file: 'reliefweb.json',
    count: 3,
    layer: 'disaster',
    revise: (d) =>
      editJson(d, (doc) => {
        doc.data[0].fields.title += ' (revised)';
        doc.data[0].fields.date.changed = '2026-10-05T00:00:00+00:00';
      }),
    revised: (s) => expect(s.title).toBe('Nepal: Test Valley Floods - Flash Update No. 1 (revised)'),
  },
  {
    connector: 'who-don',
    file: 'who-don.json',
    count: 3,
    layer: 'health',
    revise: (d) =>
      editJson(d, (doc) => {
        doc.value[0].LastModified = '2026-10-25T08:00:00Z';
        doc.value[0].Summary = 'Two further confirmed cases of Marburg virus disease were reported.';
      }),
    revised: (s) => expect(s.title).toBe('Marburg virus disease – United Republic of Tanzania'),
  },
  {
    ...news('gdelt', 'gdelt.json'),
    // No revision time: a changed headline is the revision.
    revise: (d) =>
      editJson(d, (doc) => {
        doc.articles[0].title = 'Earthquake kills 31 people in Peru , rescuers search rubble';
      }),
    revised: (s) => expect(s.title).toBe('Earthquake kills 31 people in Peru, rescuers search rubble'),
  },
  {
    ...news('rss', 'rss.xml'),
    revise: (d) => once(d, 'Earthquake kills 30 people in Peru as', 'Earthquake kills 31 people in Peru as'),
    revised: (s) => expect(s.title).toBe('Earthquake kills 31 people in Peru as rescuers search rubble'),
  },
];

const ALL_TIME = 'start=2000-01-01T00:00:00Z';

describe.each(backends)('connector ingest end to end on $name', (backend) => {
  // opening a database and a server is slow on a loaded machine
  const app = withTestApp({ open: backend.open, key: 'pro', timeout: 180_000 });

  const ingest = async (connector: string, body: string, query = '') => {
    const res = await app.fetch(
      `/api/v1/admin/sources/${connector}/ingest${query}`,
      admin({ method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body }),
    );
    return { status: res.status, body: await res.json<Json>() };
  };
  const get = async (path: string) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    return { status: res.status, body: await res.json<Json>() };
  };
  const signalCount = async () =>
    (await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`))[0]!.n;

  /** The hourly aggregates equal a recount of the signals (what revisions must preserve). */
  const aggregatesMatchSignals = async () => {
    const drift = await queryRows<Json>(
      app.db,
      sql`
      WITH truth AS (
        SELECT date_trunc('hour', published_at) AS bucket, coalesce(region, '') AS region, threat_layer,
          count(*)::int AS n, sum(coalesce(base_score, significance_score)) AS total,
          max(coalesce(base_score, significance_score)) AS top,
          (count(*) FILTER (WHERE signal_valence = 'crisis'))::int AS crisis,
          (count(*) FILTER (WHERE id = event_id))::int AS events
        FROM signals GROUP BY 1, 2, 3)
      SELECT * FROM truth t FULL JOIN signal_hourly h
        ON h.bucket = t.bucket AND h.region = t.region AND h.threat_layer = t.threat_layer
      WHERE t.n IS DISTINCT FROM h.signal_count OR abs(t.total - h.score_sum) > 1e-9
        OR t.top IS DISTINCT FROM h.score_max OR t.crisis IS DISTINCT FROM h.crisis_count
        OR t.events IS DISTINCT FROM h.event_count`,
    );
    expect(drift).toEqual([]);
  };

  it.each(cases)('$connector: ingests, re-ingests as duplicates, revises in place', async (c) => {
    const document = fixture(c.file);
    const first = await ingest(c.connector, document);
    expect(first.status).toBe(200);
    const repeats = c.repeats ?? 0;
    expect(first.body).toMatchObject({
      accepted: c.count,
      updated: 0,
      duplicates: repeats,
      rejected: 0,
      errors: [],
    });
    expect(first.body.ids).toHaveLength(c.count);

    // Readable through the public API, with filters.
    const one = await get(`/api/v1/signals/${first.body.ids[0]}`);
    expect(one.status).toBe(200);
    const signal = (one.body.data ?? one.body) as Json;
    expect(signal.threat_layer).toBe(c.layer);
    const listed = await get(`/api/v1/signals?${ALL_TIME}&layers=${c.layer}&limit=100`);
    expect(listed.status).toBe(200);
    expect((listed.body.data as Json[]).map((s) => s.id)).toContain(first.body.ids[0]);

    // Polling the same document again adds nothing.
    const again = await ingest(c.connector, document);
    expect(again.body).toMatchObject({
      accepted: 0,
      updated: 0,
      duplicates: c.count + repeats,
      rejected: 0,
      ids: [],
    });

    // A revised copy updates exactly one signal in place, and sync reports it.
    const mark = new Date(Date.now() - 1).toISOString();
    const total = await signalCount();
    const revised = await ingest(c.connector, c.revise(document));
    expect(revised.body).toMatchObject({
      accepted: 0,
      updated: 1,
      duplicates: c.count - 1 + repeats,
      rejected: 0,
    });
    expect(revised.body.ids).toHaveLength(1);
    const id = revised.body.ids[0] as string;
    expect(await signalCount()).toBe(total);
    const after = (await get(`/api/v1/signals/${id}`)).body;
    const stored = (after.data ?? after) as Json;
    c.revised(stored);
    expect(Date.parse(stored.updated_at)).toBeGreaterThan(Date.parse(mark));
    const sync = await get(`/api/v1/signals?updated_since=${encodeURIComponent(mark)}&limit=100`);
    expect((sync.body.data as Json[]).map((s) => s.id)).toEqual([id]);
    await aggregatesMatchSignals();
  });

  it('usgs: an older copy never overwrites a newer one; a withdrawn quake is retracted', async () => {
    const document = fixture('usgs.geojson');
    // The original (older) copy after the revision above: nothing changes.
    const stale = await ingest('usgs', document);
    expect(stale.body).toMatchObject({ accepted: 0, updated: 0, duplicates: 6 });
    const newest = await get(`/api/v1/signals?${ALL_TIME}&search=Afghanistan&limit=100`);
    expect((newest.body.data as Json[]).map((s) => s.title)).toContain(
      'M 7.1 - 40 km S of Test Valley, Afghanistan',
    );

    const withdrawn = editJson(document, (doc) => {
      doc.features[1].properties.status = 'deleted';
      doc.features[1].properties.updated += 3_600_000;
    });
    const mark = new Date(Date.now() - 1).toISOString();
    const result = await ingest('usgs', withdrawn);
    expect(result.body).toMatchObject({ accepted: 0, updated: 1, duplicates: 5 });
    const id = result.body.ids[0] as string;
    expect((await get(`/api/v1/signals/${id}`)).status).toBe(404);
    const listed = await get(`/api/v1/signals?${ALL_TIME}&layers=disaster&limit=100`);
    expect((listed.body.data as Json[]).map((s) => s.id)).not.toContain(id);
    const sync = await get(`/api/v1/signals?updated_since=${encodeURIComponent(mark)}&limit=100`);
    expect(sync.body.data).toEqual([expect.objectContaining({ id, retracted_at: expect.any(String) })]);
    // Withdrawn again: already retracted, nothing to do.
    expect((await ingest('usgs', withdrawn)).body).toMatchObject({ updated: 0, duplicates: 6 });
  });

  it('a document that does not parse is a 400 problem and ingests nothing', async () => {
    const total = await signalCount();
    for (const [connector, body] of [
      ['usgs', '{"type":"FeatureCollection","features":'],
      ['gdacs', '<rss><channel><item><title>broken'],
      ['rss', 'not a feed at all'],
      ['nvd', ''],
    ] as const) {
      const res = await ingest(connector, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'unparseable_document', status: 400 });
    }
    expect(await signalCount()).toBe(total);
  });

  it('an unknown connector is a 404 problem; the admin token is required', async () => {
    const res = await ingest('carrier-pigeon', '{}');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'unknown_connector' });
    const anonymous = await app.fetch('/api/v1/admin/sources/usgs/ingest', { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
  });

  it('ingests under a named source, which must exist and belong to the connector', async () => {
    expect((await ingest('usgs', '{}', '?source=Nobody')).body).toMatchObject({ code: 'not_found' });
    const wrong = await ingest('usgs', fixture('usgs.geojson'), '?source=GDACS%20alerts');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'invalid_request' });
  });
});
