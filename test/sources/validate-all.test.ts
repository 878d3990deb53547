import { describe, expect, it } from 'vitest';
import { validateItem } from '../../src/ingest/validate';
import { CATALOGUE } from '../../src/sources/catalogue';
import { connectorFor } from '../../src/sources/registry';
import { CONNECTOR_NAMES, type ConnectorName } from '../../src/sources/types';
import { context, fixture, parse } from './support';

const FIXTURES: [ConnectorName, string][] = [
  ['usgs', 'usgs.geojson'],
  ['gdacs', 'gdacs.xml'],
  ['eonet', 'eonet.json'],
  ['nws', 'nws.geojson'],
  ['cisa-kev', 'cisa-kev.json'],
  ['nvd', 'nvd.json'],
  ['reliefweb', 'reliefweb.json'],
  ['who-don', 'who-don.json'],
  ['gdelt', 'gdelt.json'],
  ['rss', 'rss.xml'],
  ['rss', 'atom.xml'],
  ['rss', 'jsonfeed.json'],
];

describe('every connector', () => {
  it('is registered under its API name', () => {
    for (const name of CONNECTOR_NAMES) expect(connectorFor(name)?.name).toBe(name);
  });

  it.each(FIXTURES)(
    '%s (%s): every item of its fixture passes ingest validation once a source is attached',
    (name, file) => {
      const items = parse(name, fixture(file), context(name === 'gdelt' ? 'discovered' : 'core'));
      expect(items.length).toBeGreaterThan(0);
      const idsByUrl = new Map<string, string>();
      // What the ingest keeps beside the signal's columns (identity, revision time, withdrawal,
      // how news was read) is not part of the ingest item.
      for (const { external_ids, upstream_updated_at, retracted, classification, ...rest } of items) {
        void classification;
        const checked = validateItem({ ...rest, source: { name: 'fixture', tier: 'core' } });
        expect(checked.ok ? [] : checked.errors).toEqual([]);
        expect(external_ids.length).toBeGreaterThan(0);
        for (const id of external_ids) expect(id.startsWith(`${name}:`)).toBe(true);
        if (upstream_updated_at !== undefined)
          expect(Number.isNaN(Date.parse(upstream_updated_at))).toBe(false);
        expect(retracted).toBeUndefined();
        // signals.source_url is unique: two items of one document that share it are one upstream
        // item (a news link under two fragments), with the same identity, so the ingest keeps one.
        const ids = [...external_ids].sort().join(' ');
        expect(idsByUrl.get(rest.source_url) ?? ids).toBe(ids);
        idsByUrl.set(rest.source_url, ids);
      }
    },
  );

  it('is deterministic: the same document gives the same items', () => {
    for (const [name, file] of FIXTURES) {
      expect(parse(name, fixture(file))).toEqual(parse(name, fixture(file)));
    }
  });
});

describe('built-in catalogue', () => {
  it('names registered connectors, https URLs, tiers and etiquette-respecting intervals', () => {
    const minimum: Partial<Record<ConnectorName, number>> = {
      'cisa-kev': 1440,
      nvd: 60,
      gdelt: 15,
      usgs: 5,
      rss: 15,
    };
    for (const entry of CATALOGUE) {
      expect(connectorFor(entry.connector)).toBeDefined();
      expect(new URL(entry.url).protocol).toBe('https:');
      expect(entry.interval_minutes).toBeGreaterThanOrEqual(minimum[entry.connector] ?? 5);
      expect(entry.tier).toBe(
        entry.connector === 'gdelt' ? 'discovered' : entry.connector === 'rss' ? 'community' : 'core',
      );
    }
    expect(new Set(CATALOGUE.map((e) => e.name)).size).toBe(CATALOGUE.length);
    expect(CATALOGUE.find((e) => e.connector === 'reliefweb')?.enabled).toBe(false);
  });

  it('builds a request URL for every enabled entry', () => {
    for (const entry of CATALOGUE.filter((e) => e.enabled !== false)) {
      const connector = connectorFor(entry.connector)!;
      const source = { name: entry.name, url: entry.url, tier: entry.tier, options: entry.options ?? {} };
      const url = connector.requestUrl
        ? connector.requestUrl(source, new Date('2026-11-23T00:00:00Z'))
        : entry.url;
      expect(new URL(url).protocol).toBe('https:');
    }
  });
});
