import { describe, expect, it } from 'vitest';
import { connectorFor } from '../../src/sources/registry';
import { ConnectorError } from '../../src/sources/types';
import { byId, context, fixture, parse } from './support';

const kev = fixture('cisa-kev.json');
const nvdDoc = fixture('nvd.json');

describe('cisa-kev connector', () => {
  it('maps an exploited CVE and raises the score for known ransomware use', () => {
    const items = parse('cisa-kev', kev);
    // the entry without a CVE id is skipped
    expect(items).toHaveLength(3);
    expect(byId(items, 'cisa-kev:CVE-2025-90001')).toMatchObject({
      threat_layer: 'cyber',
      significance_score: 6,
      signal_valence: 'crisis',
      title: 'CVE-2025-90001: Examplesoft Example Gateway Path Traversal Vulnerability',
      country_codes: [],
      published_at: '2025-11-20T00:00:00.000Z',
      source_url:
        'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2025-90001',
      external_ids: ['cisa-kev:CVE-2025-90001'],
    });
    const ransomware = byId(items, 'cisa-kev:CVE-2025-90002');
    expect(ransomware.significance_score).toBe(8);
    expect(ransomware.content_display).toContain('Known use in ransomware campaigns.');
    // the description's markup is stripped
    expect(ransomware.content_display).toContain('allowing remote code execution.');
  });

  it('refuses a malformed document', () => {
    expect(() => parse('cisa-kev', '{"vulnerabilities": "none"}')).toThrow(ConnectorError);
    expect(() => parse('cisa-kev', '<html>')).toThrow(ConnectorError);
  });
});

describe('nvd connector', () => {
  it('keeps only CVEs at or above the default floor of 9.0, by NVD’s primary score', () => {
    const items = parse('nvd', nvdDoc);
    expect(items).toHaveLength(4);
    // CVE-2025-91003: primary v3.1 7.8 (the secondary 10.0 does not count)
    expect(items.some((i) => i.external_ids.includes('nvd:CVE-2025-91003'))).toBe(false);
    expect(byId(items, 'nvd:CVE-2025-91001')).toMatchObject({
      threat_layer: 'cyber',
      // 9.8 − 3
      significance_score: 6.8,
      signal_valence: 'crisis',
      // NVD writes UTC without a zone: read as UTC
      published_at: '2025-11-18T10:15:13.973Z',
      upstream_updated_at: '2025-11-19T21:48:06.750Z',
      source_url: 'https://nvd.nist.gov/vuln/detail/CVE-2025-91001',
      external_ids: ['nvd:CVE-2025-91001'],
    });
    // 9.8 − 3 + 1.5 (in CISA KEV), titled by KEV's name
    expect(byId(items, 'nvd:CVE-2025-91002')).toMatchObject({
      significance_score: 8.3,
      title: 'CVE-2025-91002 (CVSS 9.8): Test Router Stack-based Buffer Overflow Vulnerability',
    });
    // the newest CVSS version present (v4.0 9.3) wins over v3.1 8.1; markup stripped
    expect(byId(items, 'nvd:CVE-2025-91004')).toMatchObject({
      significance_score: 6.3,
      title: 'CVE-2025-91004 (CVSS 9.3): Demo Server allows an unauthenticated reset of any account.',
    });
    // 10 − 3 + 1.5
    expect(byId(items, 'nvd:CVE-2025-91005').significance_score).toBe(8.5);
  });

  it('honours a configured floor', () => {
    expect(parse('nvd', nvdDoc, context('core', { min_cvss: 7 }))).toHaveLength(5);
    expect(parse('nvd', nvdDoc, context('core', { min_cvss: 10 })).map((i) => i.external_ids)).toEqual([
      ['nvd:CVE-2025-91005'],
    ]);
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
