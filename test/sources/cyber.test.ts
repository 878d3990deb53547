import { describe, expect, it } from 'vitest';
import { connectorFor } from '../../src/sources/registry';
import { ConnectorError } from '../../src/sources/types';
import { byId, context, fixture, parse } from './support';

const kev = fixture('cisa-kev.json');
const nvdDoc = fixture('nvd-cves-2.0.json');

describe('cisa-kev connector', () => {
  it('maps an exploited CVE and raises the score for known ransomware use', () => {
    const items = parse('cisa-kev', kev);
    expect(items).toHaveLength(30);
    expect(byId(items, 'cisa-kev:CVE-2025-48384')).toMatchObject({
      threat_layer: 'cyber',
      significance_score: 6,
      signal_valence: 'crisis',
      title: 'CVE-2025-48384: Git Link Following Vulnerability',
      country_codes: [],
      published_at: '2025-08-25T00:00:00.000Z',
      source_url:
        'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2025-48384',
      external_ids: ['cisa-kev:CVE-2025-48384'],
    });
    const ransomware = byId(items, 'cisa-kev:CVE-2025-49706');
    expect(ransomware.significance_score).toBe(8);
    expect(ransomware.content_display).toContain('Known use in ransomware campaigns.');
  });

  it('refuses a malformed document', () => {
    expect(() => parse('cisa-kev', '{"vulnerabilities": "none"}')).toThrow(ConnectorError);
    expect(() => parse('cisa-kev', '<html>')).toThrow(ConnectorError);
  });
});

describe('nvd connector', () => {
  it('keeps only CVEs at or above the default floor of 9.0, by NVD’s primary score', () => {
    const items = parse('nvd', nvdDoc);
    expect(items).toHaveLength(11);
    // CVE-2022-20701: primary v3.1 7.8 (the secondary 10.0 does not count)
    expect(items.some((i) => i.external_ids.includes('nvd:CVE-2022-20701'))).toBe(false);
    expect(byId(items, 'nvd:CVE-2021-25992')).toMatchObject({
      threat_layer: 'cyber',
      // 9.8 − 3
      significance_score: 6.8,
      signal_valence: 'crisis',
      published_at: '2022-02-10T10:15:13.973Z',
      upstream_updated_at: '2022-02-22T21:48:06.750Z',
      source_url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-25992',
      external_ids: ['nvd:CVE-2021-25992'],
    });
    // 9.8 − 3 + 1.5 (in CISA KEV)
    expect(byId(items, 'nvd:CVE-2022-20699')).toMatchObject({
      significance_score: 8.3,
      title:
        'CVE-2022-20699 (CVSS 9.8): Cisco Small Business RV Series Routers Stack-based Buffer Overflow Vulnerability',
    });
  });

  it('honours a configured floor', () => {
    expect(parse('nvd', nvdDoc, context('core', { min_cvss: 7 })).length).toBeGreaterThan(11);
    expect(parse('nvd', nvdDoc, context('core', { min_cvss: 10 }))).toHaveLength(0);
  });

  it('retracts a rejected CVE', () => {
    const rejected = nvdDoc.replace('"vulnStatus":"Analyzed"', '"vulnStatus":"Rejected"');
    expect(parse('nvd', rejected).filter((i) => i.retracted)).toHaveLength(1);
  });

  it('asks NVD for a last-modified window and critical CVEs', () => {
    const url = connectorFor('nvd')!.requestUrl!(
      { name: 'nvd', url: 'https://services.nvd.nist.gov/rest/json/cves/2.0', tier: 'core', options: {} },
      new Date('2026-11-23T12:00:00Z'),
    );
    const params = new URL(url).searchParams;
    expect(params.get('lastModStartDate')).toBe('2026-11-22T12:00:00.000+00:00');
    expect(params.get('lastModEndDate')).toBe('2026-11-23T12:00:00.000+00:00');
    expect(params.get('cvssV3Severity')).toBe('CRITICAL');
  });

  it('refuses a malformed document', () => {
    expect(() => parse('nvd', '{"vulnerabilities": []}')).toThrow(ConnectorError);
    expect(() => parse('nvd', '{"format":"NVD_CVE"}')).toThrow(ConnectorError);
  });
});
