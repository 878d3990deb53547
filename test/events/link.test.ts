import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database, type DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { ingestSourceItems, upstreamSource } from '../../src/ingest/upstream';
import { CATALOGUE } from '../../src/sources/catalogue';
import { seedCatalogue, sourceByName } from '../../src/sources/rows';
import { backends } from '../support/harness';
import { context, parse } from '../sources/support';

// Fixtures of our own, each in its feed's real shape: one CVE in CISA KEV and in NVD, one
// earthquake as USGS, GDACS and EONET report it.
const CVE = 'CVE-2026-40001';
const KEV = JSON.stringify({
  title: 'CISA Catalog of Known Exploited Vulnerabilities',
  catalogVersion: '2026.11.20',
  dateReleased: '2026-11-20T17:00:00.000Z',
  count: 1,
  vulnerabilities: [
    {
      cveID: CVE,
      vendorProject: 'Examplesoft',
      product: 'Gateway',
      vulnerabilityName: 'Examplesoft Gateway Command Injection Vulnerability',
      dateAdded: '2026-11-20',
      shortDescription: 'Examplesoft Gateway lets an unauthenticated attacker run commands.',
      requiredAction: 'Apply mitigations per vendor instructions.',
      dueDate: '2026-12-11',
      knownRansomwareCampaignUse: 'Unknown',
      notes: '',
      cwes: ['CWE-78'],
    },
  ],
});
const NVD = JSON.stringify({
  resultsPerPage: 1,
  startIndex: 0,
  totalResults: 1,
  format: 'NVD_CVE',
  version: '2.0',
  timestamp: '2026-11-20T18:00:00.000',
  vulnerabilities: [
    {
      cve: {
        id: CVE,
        sourceIdentifier: 'psirt@examplesoft.example',
        published: '2026-11-19T10:15:00.000',
        lastModified: '2026-11-20T16:00:00.000',
        vulnStatus: 'Analyzed',
        cisaExploitAdd: '2026-11-20',
        cisaVulnerabilityName: 'Examplesoft Gateway Command Injection Vulnerability',
        descriptions: [{ lang: 'en', value: 'A command injection flaw in Examplesoft Gateway before 4.2.' }],
        metrics: {
          cvssMetricV31: [
            {
              source: 'nvd@nist.gov',
              type: 'Primary',
              cvssData: { version: '3.1', baseScore: 9.8, baseSeverity: 'CRITICAL' },
            },
          ],
        },
      },
    },
  ],
});

const ORIGIN = Date.parse('2026-11-21T03:12:40Z');
const USGS = JSON.stringify({
  type: 'FeatureCollection',
  metadata: {
    generated: ORIGIN + 3_600_000,
    title: 'USGS Significant Earthquakes, Past Week',
    status: 200,
    count: 1,
  },
  features: [
    {
      type: 'Feature',
      properties: {
        mag: 6.4,
        place: '42 km SW of Exampleton, Chile',
        time: ORIGIN,
        updated: ORIGIN + 1_800_000,
        url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us7000test',
        alert: 'yellow',
        status: 'reviewed',
        tsunami: 0,
        sig: 800,
        net: 'us',
        code: '7000test',
        ids: ',us7000test,',
        magType: 'mww',
        type: 'earthquake',
        title: 'M 6.4 - 42 km SW of Exampleton, Chile',
      },
      geometry: { type: 'Point', coordinates: [-71.1, -30.2, 35] },
      id: 'us7000test',
    },
  ],
});
const GDACS = `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:geo="http://www.w3.org/2003/01/geo/wgs84_pos#" xmlns:gdacs="http://www.gdacs.org">
  <channel>
    <title>GDACS RSS information</title>
    <link>https://www.gdacs.org/</link>
    <pubDate>Sat, 21 Nov 2026 04:30:00 GMT</pubDate>
    <item>
      <title>Orange earthquake alert (Magnitude 6.2M, Depth:30km) in Chile 21/11/2026 03:12 UTC, 200000 people in 100km.</title>
      <description>An earthquake occurred in Chile.</description>
      <link>https://www.gdacs.org/report.aspx?eventtype=EQ&amp;eventid=1500001</link>
      <pubDate>Sat, 21 Nov 2026 03:55:00 GMT</pubDate>
      <gdacs:datemodified>Sat, 21 Nov 2026 03:55:00 GMT</gdacs:datemodified>
      <gdacs:iscurrent>true</gdacs:iscurrent>
      <gdacs:fromdate>Sat, 21 Nov 2026 03:12:40 GMT</gdacs:fromdate>
      <gdacs:todate>Sat, 21 Nov 2026 03:12:40 GMT</gdacs:todate>
      <guid isPermaLink="false">EQ1500001</guid>
      <geo:Point><geo:lat>-30.6</geo:lat><geo:long>-71.4</geo:long></geo:Point>
      <gdacs:eventtype>EQ</gdacs:eventtype>
      <gdacs:alertlevel>Orange</gdacs:alertlevel>
      <gdacs:severity unit="M" value="6.2">Magnitude 6.2M, Depth:30km</gdacs:severity>
      <gdacs:iso3>CHL</gdacs:iso3>
      <gdacs:country>Chile</gdacs:country>
    </item>
  </channel>
</rss>`;
const EONET = JSON.stringify({
  title: 'EONET Events',
  description: 'Natural events from EONET.',
  link: 'https://eonet.gsfc.nasa.gov/api/v3/events',
  events: [
    {
      id: 'EONET_90001',
      title: 'Earthquake near Exampleton, Chile',
      description: null,
      link: 'https://eonet.gsfc.nasa.gov/api/v3/events/EONET_90001',
      closed: null,
      categories: [{ id: 'earthquakes', title: 'Earthquakes' }],
      sources: [{ id: 'USGS_EHP', url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us7000test' }],
      geometry: [
        {
          magnitudeValue: 6.4,
          magnitudeUnit: 'Mw',
          date: '2026-11-21T03:12:40Z',
          type: 'Point',
          coordinates: [-71.0, -30.3],
        },
      ],
    },
  ],
});

interface Row {
  id: string;
  source_url: string;
  event_id: string;
  event_lead: boolean;
  corroboration: number;
  significance_score: number;
  base_score: number | null;
  updated_at: string;
}

const rowsOf = (db: Database, like: string) =>
  queryRows<Row>(
    db,
    sql`SELECT id, source_url, event_id, event_lead, corroboration, significance_score, base_score,
          updated_at::text FROM signals WHERE source_url LIKE ${like} ORDER BY published_at, source_url`,
  );
const eventOf = async (db: Database, id: string) =>
  (
    await queryRows<{
      id: string;
      merged_into: string | null;
      publisher_count: number;
      publisher_families: string[];
      signal_count: number;
      lead_signal_id: string | null;
      max_score: number;
      upstream_keys: string[];
    }>(db, sql`SELECT * FROM events WHERE id = ${id}`)
  )[0];

let counter = 0;
const news = (
  outlet: string,
  host: string,
  title: string,
  summary: string,
  over: Record<string, unknown> = {},
) => ({
  threat_layer: 'military',
  significance_score: 6,
  signal_valence: 'crisis',
  title,
  content_display: `${title}\n\n${summary}`,
  country_codes: ['NG'],
  published_at: '2026-11-20T08:00:00Z',
  source_url: `https://${host}/story/${++counter}`,
  source: { name: outlet },
  ...over,
});

describe.each(backends)('event linking at ingest on $name', (backend) => {
  let database: DatabaseHandle;
  let db: Database;
  const source = async (name: string) => upstreamSource((await sourceByName(db, name))!);

  beforeAll(async () => {
    database = await backend.open();
    db = database.db;
    expect(await seedCatalogue(db)).toBe(CATALOGUE.length);
  }, 180_000);
  afterAll(async () => {
    await database?.close();
  });

  it('links a CVE in CISA KEV and in NVD into one event, corroborated by two publishers', async () => {
    const now = new Date('2026-11-21T00:00:00Z');
    await ingestSourceItems(
      db,
      await source('CISA Known Exploited Vulnerabilities'),
      parse('cisa-kev', KEV, context('core', {}, now)),
    );
    await ingestSourceItems(
      db,
      await source('NVD critical CVEs'),
      parse('nvd', NVD, context('core', {}, now)),
    );
    const rows = await rowsOf(db, `%${CVE}%`);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.event_id).toBe(rows[1]!.event_id);
    const event = (await eventOf(db, rows[0]!.event_id))!;
    expect(event).toMatchObject({ publisher_count: 2, signal_count: 2, merged_into: null });
    expect(event.publisher_families).toEqual(['cisa', 'nist']);
    expect(event.upstream_keys).toEqual([`cve:${CVE}`]);
    expect(rows.filter((r) => r.event_lead)).toHaveLength(1);
    for (const r of rows) {
      expect(r.corroboration).toBe(2);
      expect(r.significance_score).toBeCloseTo(Math.min(10, r.base_score! + 0.25), 5);
    }
  });

  it('links one earthquake from USGS, GDACS and EONET', async () => {
    const now = new Date('2026-11-21T06:00:00Z');
    await ingestSourceItems(
      db,
      await source('USGS significant earthquakes (past week)'),
      parse('usgs', USGS, context('core', {}, now)),
    );
    await ingestSourceItems(
      db,
      await source('GDACS alerts'),
      parse('gdacs', GDACS, context('core', {}, now)),
    );
    await ingestSourceItems(
      db,
      await source('NASA EONET open events (past 7 days)'),
      parse('eonet', EONET, context('core', {}, now)),
    );
    const rows = await queryRows<Row>(
      db,
      sql`SELECT id, source_url, event_id, corroboration FROM signals
          WHERE source_url LIKE '%us7000test%' OR source_url LIKE '%1500001%' OR source_url LIKE '%EONET_90001%'`,
    );
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(1);
    expect(rows.every((r) => r.corroboration === 3)).toBe(true);
  });

  it('keeps apart quakes too far apart in place, time or magnitude', async () => {
    const quake = (n: string, lat: number, time: number, mag: number) =>
      JSON.stringify({
        type: 'FeatureCollection',
        metadata: { generated: time, title: 'test', status: 200, count: 1 },
        features: [
          {
            type: 'Feature',
            id: `us7000${n}`,
            properties: {
              mag,
              place: 'off the coast of Exampleland',
              time,
              updated: time,
              url: `https://earthquake.usgs.gov/earthquakes/eventpage/us7000${n}`,
              status: 'reviewed',
              ids: `,us7000${n},`,
              type: 'earthquake',
              title: `M ${mag} - off the coast of Exampleland`,
            },
            geometry: { type: 'Point', coordinates: [150, lat, 10] },
          },
        ],
      });
    const usgs = await source('USGS earthquakes M4.5+ (past day)');
    const t = Date.parse('2026-11-22T10:00:00Z');
    const now = new Date(t + 3_600_000);
    for (const [n, lat, time, mag] of [
      ['far1', 10, t, 5.5],
      ['far2', 11.5, t, 5.5], // ~167 km away
      ['far3', 10, t + 45 * 60_000, 5.5], // 45 minutes later
      ['far4', 10, t, 6.3], // 0.8 apart in magnitude
    ] as const) {
      await ingestSourceItems(db, usgs, parse('usgs', quake(n, lat, time, mag), context('core', {}, now)));
    }
    const rows = await rowsOf(db, '%us7000far%');
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(4);
  });

  it('links ten outlets telling one story in one batch, counting one owner once', async () => {
    const outlets: [string, string][] = [
      ['BBC World', 'www.bbc.com'],
      ['BBC Africa', 'www.bbc.co.uk'],
      ['Example Wire', 'wire.example.com'],
      ['Daily Example', 'daily.example.org'],
      ['Example Times', 'times.example.net'],
      ['Morning Example', 'morning.example.com'],
      ['Example Post', 'post.example.org'],
      ['Evening Example', 'evening.example.net'],
      ['Example Herald', 'herald.example.com'],
      ['Example Courier', 'courier.example.org'],
    ];
    const headlines = [
      'Drones strike fuel depot outside Varnagrad, officials say',
      'Fuel depot near Varnagrad ablaze after overnight drone strike',
      'Overnight drone strike sets Varnagrad fuel depot on fire',
      'Varnagrad fuel depot hit by drones overnight',
    ];
    const items = outlets.map(([name, host], i) =>
      news(
        name,
        host,
        headlines[i % headlines.length]!,
        'Regional officials in Varnagrad said a fuel depot burned for hours after an overnight drone strike.',
        {
          published_at: `2026-11-20T0${i}:30:00Z`,
        },
      ),
    );
    const other = news(
      'Example Wire',
      'wire.example.com',
      'Varnagrad council approves new budget for schools',
      'The council voted to raise spending on schools.',
      {
        threat_layer: 'political',
      },
    );
    const result = await ingestSignals(db, [...items, other]);
    expect(result.accepted).toBe(11);
    const rows = await queryRows<Row>(
      db,
      sql`SELECT s.event_id, s.corroboration, s.event_lead, s.source_url FROM signals s
          WHERE s.source_url IN ${[...items, other].map((i) => i.source_url)}`,
    );
    const story = rows.filter((r) => r.source_url !== other.source_url);
    expect(new Set(story.map((r) => r.event_id)).size).toBe(1);
    // BBC World and BBC Africa are one publisher: nine, not ten.
    expect(story.every((r) => r.corroboration === 9)).toBe(true);
    expect(story.filter((r) => r.event_lead)).toHaveLength(1);
    const budget = rows.find((r) => r.source_url === other.source_url)!;
    expect(budget.event_id).not.toBe(story[0]!.event_id);
    expect(budget.corroboration).toBe(1);
  });

  it('raises the event when a later report is graver, and tells sync clients', async () => {
    const first = news(
      'Example Wire',
      'wire.example.com',
      'Ferry capsizes on Lake Orvalo, dozens missing',
      'A ferry capsized on Lake Orvalo on Sunday with dozens missing.',
      {
        threat_layer: 'disaster',
        country_codes: ['YT'],
        significance_score: 5,
      },
    );
    await ingestSignals(db, [first]);
    const [before] = await rowsOf(db, first.source_url);
    expect(before).toMatchObject({ corroboration: 1, significance_score: 5, event_lead: true });
    const later = news(
      'Daily Example',
      'daily.example.org',
      'Lake Orvalo ferry capsizes: death toll rises to 40',
      'The death toll of the ferry that capsized on Lake Orvalo rose to 40 on Monday, with dozens missing.',
      {
        threat_layer: 'disaster',
        country_codes: ['YT'],
        significance_score: 7,
        published_at: '2026-11-21T08:00:00Z',
      },
    );
    await ingestSignals(db, [later]);
    const [a] = await rowsOf(db, first.source_url);
    const [b] = await rowsOf(db, later.source_url);
    expect(b!.event_id).toBe(a!.event_id);
    expect(a).toMatchObject({ corroboration: 2, significance_score: 5.25, event_lead: false, base_score: 5 });
    expect(b).toMatchObject({ corroboration: 2, significance_score: 7.25, event_lead: true });
    expect(a!.updated_at > before!.updated_at).toBe(true);
    expect(await eventOf(db, a!.event_id)).toMatchObject({
      max_score: 7,
      lead_signal_id: b!.id,
      signal_count: 2,
    });
  });

  it('merges two events that one report shows to be the same, keeping the older id', async () => {
    const glide = 'FL-2026-000777-MYT';
    const older = news(
      'Example Wire',
      'wire.example.com',
      `Floods in Orvale district, GLIDE ${glide}`,
      'Rivers burst their banks.',
      {
        threat_layer: 'disaster',
        country_codes: ['YT'],
        published_at: '2026-11-22T06:00:00Z',
      },
    );
    await ingestSignals(db, [older]);
    const newer = news(
      'Example Times',
      'times.example.net',
      'Relief convoys reach flooded valleys',
      'Aid agencies report convoys arriving.',
      {
        threat_layer: 'disaster',
        country_codes: ['YT'],
        published_at: '2026-11-22T07:00:00Z',
      },
    );
    await ingestSignals(db, [newer], { externalIds: new Map([[newer.source_url, ['eonet:EONET_777']]]) });
    const [o] = await rowsOf(db, older.source_url);
    const [n] = await rowsOf(db, newer.source_url);
    expect(n!.event_id).not.toBe(o!.event_id);
    const bridge = news(
      'Daily Example',
      'daily.example.org',
      `Orvale floods update (GLIDE ${glide})`,
      'Situation report.',
      {
        threat_layer: 'disaster',
        country_codes: ['YT'],
        published_at: '2026-11-22T09:00:00Z',
      },
    );
    await ingestSignals(db, [bridge], { externalIds: new Map([[bridge.source_url, ['eonet:EONET_777']]]) });
    const after = await rowsOf(db, '%/story/%');
    const ids = [older, newer, bridge].map((i) => after.find((r) => r.source_url === i.source_url)!.event_id);
    expect(ids).toEqual([o!.event_id, o!.event_id, o!.event_id]);
    const merged = (await eventOf(db, n!.event_id))!;
    expect(merged.merged_into).toBe(o!.event_id);
    const kept = (await eventOf(db, o!.event_id))!;
    expect(kept).toMatchObject({ merged_into: null, signal_count: 3, publisher_count: 3 });
    expect(kept.upstream_keys).toEqual(['eonet:EONET_777', `glide:${glide}`]);
  });

  it('refuses to link across layers that cannot share an event', async () => {
    const a = news(
      'Example Wire',
      'wire.example.com',
      'Hospital network in Tessaly hit by ransomware attack',
      'Hospitals in Tessaly diverted ambulances after ransomware.',
      {
        threat_layer: 'cyber',
        country_codes: ['YT'],
      },
    );
    const b = news(
      'Daily Example',
      'daily.example.org',
      'Hospital network in Tessaly hit by ransomware attack',
      'Hospitals in Tessaly diverted ambulances after ransomware.',
      {
        threat_layer: 'health',
        country_codes: ['YT'],
      },
    );
    await ingestSignals(db, [a, b]);
    const [x] = await rowsOf(db, a.source_url);
    const [y] = await rowsOf(db, b.source_url);
    expect(x!.event_id).not.toBe(y!.event_id);
  });
});
