import type { CatalogueEntry } from './types';

/**
 * The built-in sources the poller seeds. URLs are the live ones recorded in the fixtures README;
 * intervals follow each feed's etiquette (see ./README.md, "Catalogue").
 */
export const CATALOGUE: CatalogueEntry[] = [
  {
    connector: 'usgs',
    name: 'USGS earthquakes M4.5+ (past day)',
    url: 'https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/4.5_day.geojson',
    tier: 'core',
    interval_minutes: 5,
  },
  {
    connector: 'usgs',
    name: 'USGS significant earthquakes (past week)',
    url: 'https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/significant_week.geojson',
    tier: 'core',
    interval_minutes: 15,
  },
  {
    connector: 'gdacs',
    name: 'GDACS alerts',
    url: 'https://www.gdacs.org/xml/rss.xml',
    tier: 'core',
    interval_minutes: 15,
  },
  {
    connector: 'eonet',
    name: 'NASA EONET open events (past 7 days)',
    url: 'https://eonet.gsfc.nasa.gov/api/v3/events?status=open&days=7',
    tier: 'core',
    interval_minutes: 60,
  },
  {
    connector: 'nws',
    name: 'US NWS active alerts (severe and extreme)',
    url: 'https://api.weather.gov/alerts/active?status=actual&severity=Extreme,Severe',
    tier: 'core',
    interval_minutes: 5,
  },
  {
    connector: 'cisa-kev',
    name: 'CISA Known Exploited Vulnerabilities',
    url: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
    tier: 'core',
    interval_minutes: 1440,
  },
  {
    connector: 'nvd',
    name: 'NVD critical CVEs',
    url: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
    tier: 'core',
    interval_minutes: 120,
    options: { min_cvss: 9.0, window_hours: 24 },
  },
  {
    connector: 'reliefweb',
    name: 'ReliefWeb latest reports',
    url: 'https://api.reliefweb.int/v2/reports',
    tier: 'core',
    interval_minutes: 30,
    // ReliefWeb refuses calls without an approved appname: the operator sets one, then enables.
    options: { appname: '' },
    enabled: false,
  },
  {
    connector: 'who-don',
    name: 'WHO Disease Outbreak News',
    url: 'https://www.who.int/api/news/diseaseoutbreaknews?$orderby=PublicationDate%20desc&$top=20',
    tier: 'core',
    interval_minutes: 60,
  },
  {
    connector: 'gdelt',
    name: 'GDELT: conflict',
    url: 'https://api.gdeltproject.org/api/v2/doc/doc',
    tier: 'discovered',
    interval_minutes: 15,
    options: {
      query: '(airstrike OR missile OR shelling OR "military offensive") sourcelang:english',
      timespan: '1h',
    },
  },
  {
    connector: 'gdelt',
    name: 'GDELT: cyber',
    url: 'https://api.gdeltproject.org/api/v2/doc/doc',
    tier: 'discovered',
    interval_minutes: 15,
    options: {
      query: '(cyberattack OR ransomware OR "data breach" OR "zero-day") sourcelang:english',
      timespan: '1h',
    },
  },
  {
    connector: 'gdelt',
    name: 'GDELT: outbreaks',
    url: 'https://api.gdeltproject.org/api/v2/doc/doc',
    tier: 'discovered',
    interval_minutes: 15,
    options: { query: '(outbreak OR epidemic OR cholera OR ebola) sourcelang:english', timespan: '1h' },
  },
  {
    connector: 'rss',
    name: 'BBC News World',
    url: 'https://feeds.bbci.co.uk/news/world/rss.xml',
    tier: 'community',
    interval_minutes: 15,
  },
  {
    connector: 'rss',
    name: 'Al Jazeera English',
    url: 'https://www.aljazeera.com/xml/rss/all.xml',
    tier: 'community',
    interval_minutes: 15,
  },
];
