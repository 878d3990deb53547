/**
 * Deterministic demo data: realistic-looking signals for local development, demos and tests.
 *
 * Everything comes from one seeded PRNG (mulberry32), so the same (count, now, seed) always
 * yields the same output. Signals are drawn from three streams:
 * - storylines: about thirty evolving stories (a siege, a ransomware campaign, a port strike,
 *   a cholera outbreak...) with fixed places, people and organisations, moving from crisis
 *   through updates to resolution over days, so related signals share entities and terms;
 * - bursts: four sudden events in the last six hours, far above their country/layer baseline;
 * - background: one-off signals anywhere in the place table over the whole 30-day window.
 * People, threat groups, outlets and events are fictional; places and coordinates are real.
 */
import { COUNTRIES } from '../countries';
import { LAYERS, type Layer, type Region, type SourceTier, type Valence } from '../vocab';

export interface DemoItem {
  threat_layer: string;
  significance_score: number;
  signal_valence: 'crisis' | 'update' | 'resolution';
  title: string;
  content_display: string;
  country_codes: string[];
  city: string | null;
  lat: number | null;
  lng: number | null;
  language: string;
  published_at: string;
  collected_at: string;
  source_url: string;
  source: { name: string; url: string; tier: 'core' | 'community' | 'discovered'; language: string };
}

export interface DemoOptions {
  count: number;
  now: Date;
  seed?: number;
}

const DEFAULT_SEED = 20240601;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WINDOW_DAYS = 30;
const RECENT_WINDOW = 6 * HOUR;

const STORYLINE_SHARE = 0.6;
const BURST_SHARE = 0.08;
/** Share of ongoing-story and background signals placed in the last six hours: a live, denser stream. */
const RECENT_SHARE = 0.1;
const NO_CITY_SHARE = 0.1;
const SECOND_COUNTRY_SHARE = 0.6;
const NATIVE_LANGUAGE_SHARE = 0.35;

type Rng = () => number;

/** mulberry32: tiny, fast, good enough for demo data, and identical on every runtime. */
function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;
const between = (rng: Rng, min: number, max: number): number => min + rng() * (max - min);
const intBetween = (rng: Rng, min: number, max: number): number => Math.floor(between(rng, min, max + 1));

interface Place {
  code: string;
  city: string;
  lat: number;
  lng: number;
}

const place = (code: string, city: string, lat: number, lng: number): Place => ({ code, city, lat, lng });

const PLACES: readonly Place[] = [
  place('UA', 'Kyiv', 50.45, 30.52),
  place('UA', 'Kharkiv', 49.99, 36.23),
  place('UA', 'Odesa', 46.48, 30.72),
  place('RU', 'Moscow', 55.76, 37.62),
  place('RU', 'Belgorod', 50.6, 36.59),
  place('PL', 'Warsaw', 52.23, 21.01),
  place('PL', 'Gdańsk', 54.35, 18.65),
  place('DE', 'Berlin', 52.52, 13.4),
  place('DE', 'Hamburg', 53.55, 9.99),
  place('FR', 'Paris', 48.86, 2.35),
  place('FR', 'Marseille', 43.3, 5.37),
  place('GB', 'London', 51.51, -0.13),
  place('NL', 'Rotterdam', 51.92, 4.48),
  place('BE', 'Brussels', 50.85, 4.35),
  place('IT', 'Rome', 41.9, 12.5),
  place('ES', 'Madrid', 40.42, -3.7),
  place('GR', 'Athens', 37.98, 23.73),
  place('RS', 'Belgrade', 44.79, 20.45),
  place('MD', 'Chisinau', 47.01, 28.86),
  place('GE', 'Tbilisi', 41.72, 44.79),
  place('AM', 'Yerevan', 40.18, 44.51),
  place('AZ', 'Baku', 40.41, 49.87),
  place('EE', 'Tallinn', 59.44, 24.75),
  place('SE', 'Stockholm', 59.33, 18.07),
  place('RO', 'Bucharest', 44.43, 26.1),
  place('IL', 'Tel Aviv', 32.09, 34.78),
  place('PS', 'Gaza', 31.5, 34.47),
  place('LB', 'Beirut', 33.89, 35.5),
  place('SY', 'Damascus', 33.51, 36.29),
  place('IQ', 'Baghdad', 33.31, 44.36),
  place('IR', 'Tehran', 35.69, 51.39),
  place('YE', 'Aden', 12.79, 45.02),
  place('YE', 'Sanaa', 15.37, 44.19),
  place('SA', 'Riyadh', 24.71, 46.68),
  place('AE', 'Dubai', 25.2, 55.27),
  place('TR', 'Istanbul', 41.01, 28.98),
  place('TR', 'Izmir', 38.42, 27.14),
  place('EG', 'Cairo', 30.04, 31.24),
  place('EG', 'Port Said', 31.26, 32.3),
  place('LY', 'Tripoli', 32.89, 13.19),
  place('TN', 'Tunis', 36.81, 10.18),
  place('MA', 'Casablanca', 33.57, -7.59),
  place('DZ', 'Algiers', 36.75, 3.06),
  place('JO', 'Amman', 31.95, 35.93),
  place('IN', 'New Delhi', 28.61, 77.21),
  place('IN', 'Mumbai', 19.08, 72.88),
  place('PK', 'Karachi', 24.86, 67.01),
  place('PK', 'Islamabad', 33.68, 73.05),
  place('BD', 'Dhaka', 23.81, 90.41),
  place('BD', 'Chittagong', 22.36, 91.78),
  place('LK', 'Colombo', 6.93, 79.86),
  place('NP', 'Kathmandu', 27.72, 85.32),
  place('AF', 'Kabul', 34.56, 69.21),
  place('KZ', 'Almaty', 43.24, 76.89),
  place('UZ', 'Tashkent', 41.3, 69.24),
  place('KG', 'Bishkek', 42.87, 74.59),
  place('TJ', 'Dushanbe', 38.56, 68.79),
  place('CN', 'Beijing', 39.9, 116.41),
  place('CN', 'Shanghai', 31.23, 121.47),
  place('TW', 'Taipei', 25.03, 121.57),
  place('TW', 'Kaohsiung', 22.63, 120.3),
  place('JP', 'Tokyo', 35.68, 139.69),
  place('KR', 'Seoul', 37.57, 126.98),
  place('PH', 'Manila', 14.6, 120.98),
  place('ID', 'Jakarta', -6.21, 106.85),
  place('MM', 'Yangon', 16.84, 96.17),
  place('TH', 'Bangkok', 13.76, 100.5),
  place('VN', 'Hanoi', 21.03, 105.85),
  place('MY', 'Kuala Lumpur', 3.14, 101.69),
  place('SG', 'Singapore', 1.35, 103.82),
  place('AU', 'Sydney', -33.87, 151.21),
  place('PG', 'Port Moresby', -9.44, 147.18),
  place('NZ', 'Wellington', -41.29, 174.78),
  place('MN', 'Ulaanbaatar', 47.89, 106.91),
  place('SD', 'Khartoum', 15.5, 32.56),
  place('SD', 'El Fasher', 13.63, 25.35),
  place('SD', 'Port Sudan', 19.62, 37.22),
  place('SS', 'Juba', 4.85, 31.58),
  place('ET', 'Addis Ababa', 9.03, 38.74),
  place('SO', 'Mogadishu', 2.05, 45.32),
  place('KE', 'Nairobi', -1.29, 36.82),
  place('KE', 'Mombasa', -4.04, 39.67),
  place('NG', 'Lagos', 6.52, 3.38),
  place('NG', 'Abuja', 9.08, 7.4),
  place('NG', 'Maiduguri', 11.85, 13.16),
  place('GH', 'Accra', 5.6, -0.19),
  place('SN', 'Dakar', 14.72, -17.47),
  place('ML', 'Bamako', 12.64, -8.0),
  place('BF', 'Ouagadougou', 12.37, -1.52),
  place('NE', 'Niamey', 13.51, 2.11),
  place('CD', 'Goma', -1.68, 29.22),
  place('CD', 'Kinshasa', -4.44, 15.27),
  place('ZA', 'Johannesburg', -26.2, 28.05),
  place('ZA', 'Durban', -29.86, 31.02),
  place('MZ', 'Maputo', -25.97, 32.57),
  place('MZ', 'Pemba', -12.97, 40.52),
  place('ZM', 'Lusaka', -15.39, 28.32),
  place('TZ', 'Dar es Salaam', -6.79, 39.21),
  place('CM', 'Douala', 4.05, 9.77),
  place('ZW', 'Harare', -17.83, 31.05),
  place('MG', 'Antananarivo', -18.88, 47.51),
  place('US', 'Washington', 38.91, -77.04),
  place('US', 'New York', 40.71, -74.01),
  place('US', 'Los Angeles', 34.05, -118.24),
  place('US', 'Houston', 29.76, -95.37),
  place('CA', 'Ottawa', 45.42, -75.7),
  place('CA', 'Toronto', 43.65, -79.38),
  place('CA', 'Vancouver', 49.28, -123.12),
  place('MX', 'Mexico City', 19.43, -99.13),
  place('MX', 'Culiacán', 24.81, -107.39),
  place('MX', 'Tijuana', 32.51, -117.04),
  place('HT', 'Port-au-Prince', 18.59, -72.31),
  place('VE', 'Caracas', 10.48, -66.9),
  place('CO', 'Bogotá', 4.71, -74.07),
  place('EC', 'Guayaquil', -2.17, -79.92),
  place('PE', 'Lima', -12.05, -77.04),
  place('BR', 'São Paulo', -23.55, -46.63),
  place('BR', 'Brasília', -15.79, -47.88),
  place('BR', 'Manaus', -3.12, -60.02),
  place('AR', 'Buenos Aires', -34.6, -58.38),
  place('CL', 'Santiago', -33.45, -70.67),
  place('PA', 'Panama City', 8.98, -79.52),
  place('GT', 'Guatemala City', 14.63, -90.51),
  place('SV', 'San Salvador', 13.69, -89.22),
  place('HN', 'Tegucigalpa', 14.07, -87.19),
  place('BO', 'La Paz', -16.49, -68.12),
  place('CU', 'Havana', 23.11, -82.37),
  place('JM', 'Kingston', 17.97, -76.79),
];

const PLACE_BY_CITY = new Map(PLACES.map((p) => [p.city, p]));

/** A fictional outlet. With `regions` or `layers` set it only reports on those. */
interface DemoSource {
  name: string;
  domain: string;
  tier: SourceTier;
  language: string;
  regions?: readonly Region[];
  layers?: readonly Layer[];
}

const SOURCES: readonly DemoSource[] = [
  { name: 'Meridian Wire', domain: 'meridianwire.example', tier: 'core', language: 'en' },
  { name: 'Global Dispatch', domain: 'globaldispatch.example', tier: 'core', language: 'en' },
  { name: 'World Desk Agency', domain: 'worlddeskagency.example', tier: 'core', language: 'en' },
  { name: 'Agence Horizon', domain: 'agencehorizon.example', tier: 'core', language: 'fr' },
  { name: 'Agencia Continental', domain: 'agenciacontinental.example', tier: 'core', language: 'es' },
  {
    name: 'Nordwest Nachrichten',
    domain: 'nordwest-nachrichten.example',
    tier: 'core',
    language: 'de',
    regions: ['Europe', 'Middle East'],
  },
  {
    name: 'Al-Rased News Agency',
    domain: 'alrased.example',
    tier: 'core',
    language: 'ar',
    regions: ['Middle East', 'Sub-Saharan Africa'],
  },
  {
    name: 'Kyiv Ledger',
    domain: 'kyivledger.com.example',
    tier: 'core',
    language: 'uk',
    regions: ['Europe'],
  },
  {
    name: 'Correio Atlântico',
    domain: 'correioatlantico.com.example',
    tier: 'core',
    language: 'pt',
    regions: ['Latin America', 'Sub-Saharan Africa'],
  },
  {
    name: 'Moskovsky Vestnik',
    domain: 'mvestnik.example',
    tier: 'core',
    language: 'ru',
    regions: ['Europe', 'South Asia'],
  },
  {
    name: 'The Nairobi Observer',
    domain: 'nairobiobserver.co.example',
    tier: 'core',
    language: 'en',
    regions: ['Sub-Saharan Africa'],
  },
  {
    name: 'Lagos Courier',
    domain: 'lagoscourier.com.example',
    tier: 'core',
    language: 'en',
    regions: ['Sub-Saharan Africa'],
  },
  {
    name: 'Delhi Standard',
    domain: 'delhistandard.example',
    tier: 'core',
    language: 'en',
    regions: ['South Asia'],
  },
  {
    name: 'Pacific Herald',
    domain: 'pacificherald.com.example',
    tier: 'core',
    language: 'en',
    regions: ['Asia-Pacific'],
  },
  {
    name: 'Continental Times',
    domain: 'continentaltimes.example',
    tier: 'core',
    language: 'en',
    regions: ['North America', 'Latin America'],
  },
  {
    name: 'Capital Markets Daily',
    domain: 'capitalmarketsdaily.example',
    tier: 'core',
    language: 'en',
    layers: ['economic'],
  },
  {
    name: 'Global Hazard Alerts',
    domain: 'hazardalerts.example',
    tier: 'core',
    language: 'en',
    layers: ['disaster'],
  },
  {
    name: 'Public Health Alert Network',
    domain: 'phan-alerts.example',
    tier: 'core',
    language: 'en',
    layers: ['health'],
  },
  {
    name: 'ReliefNet Bulletins',
    domain: 'reliefnet.example',
    tier: 'community',
    language: 'en',
    layers: ['disaster', 'health', 'military'],
  },
  {
    name: 'Sahel Monitor',
    domain: 'sahelmonitor.example',
    tier: 'community',
    language: 'fr',
    regions: ['Sub-Saharan Africa'],
  },
  {
    name: 'Frontline Health Watch',
    domain: 'frontlinehealthwatch.example',
    tier: 'community',
    language: 'en',
    layers: ['health'],
  },
  { name: 'CyberPulse', domain: 'cyberpulse.example', tier: 'community', language: 'en', layers: ['cyber'] },
  {
    name: 'ThreatLedger Research',
    domain: 'threatledger.example',
    tier: 'community',
    language: 'en',
    layers: ['cyber', 'criminal'],
  },
  {
    name: 'Balkan Review',
    domain: 'balkanreview.example',
    tier: 'community',
    language: 'en',
    regions: ['Europe'],
  },
  {
    name: 'Gulf Economic Brief',
    domain: 'gulfeconomicbrief.example',
    tier: 'community',
    language: 'en',
    regions: ['Middle East'],
    layers: ['economic', 'supply_chain'],
  },
  {
    name: 'Diario del Plata',
    domain: 'diariodelplata.com.example',
    tier: 'community',
    language: 'es',
    regions: ['Latin America'],
  },
  {
    name: 'Levant Observer',
    domain: 'levantobserver.example',
    tier: 'community',
    language: 'ar',
    regions: ['Middle East'],
  },
  {
    name: 'Mekong Review Online',
    domain: 'mekongreview.example',
    tier: 'community',
    language: 'en',
    regions: ['Asia-Pacific'],
  },
  {
    name: 'Supply Chain Sentinel',
    domain: 'supplychainsentinel.example',
    tier: 'community',
    language: 'en',
    layers: ['supply_chain', 'economic'],
  },
  {
    name: 'Maritime Security Watch',
    domain: 'maritimewatch.example',
    tier: 'community',
    language: 'en',
    layers: ['supply_chain', 'military'],
  },
  {
    name: 'Steppe Dispatch',
    domain: 'steppedispatch.example',
    tier: 'community',
    language: 'ru',
    regions: ['South Asia'],
  },
  {
    name: 'Border Notes',
    domain: 'bordernotes.substack.example',
    tier: 'discovered',
    language: 'en',
    layers: ['military', 'political'],
  },
  {
    name: 'Harbour Watch',
    domain: 'harbourwatch.example',
    tier: 'discovered',
    language: 'en',
    layers: ['supply_chain'],
  },
  {
    name: 'Dhaka Civic Journal',
    domain: 'dhakacivic.example',
    tier: 'discovered',
    language: 'en',
    regions: ['South Asia'],
  },
  {
    name: 'Istanbul Notebook',
    domain: 'istanbulnotebook.example',
    tier: 'discovered',
    language: 'tr',
    regions: ['Middle East', 'Europe'],
  },
  { name: 'OSINT Lens', domain: 'osintlens.example', tier: 'discovered', language: 'en' },
  {
    name: 'Pampas Politics',
    domain: 'pampaspolitics.example',
    tier: 'discovered',
    language: 'es',
    regions: ['Latin America'],
    layers: ['political', 'economic'],
  },
  {
    name: 'Tokyo Signal',
    domain: 'tokyosignal.example',
    tier: 'discovered',
    language: 'ja',
    regions: ['Asia-Pacific'],
  },
  {
    name: 'Island Wire',
    domain: 'islandwire.example',
    tier: 'discovered',
    language: 'en',
    regions: ['Latin America'],
  },
  {
    name: 'Prairie Ledger',
    domain: 'prairieledger.example',
    tier: 'discovered',
    language: 'en',
    regions: ['North America'],
  },
];

type ItemSource = DemoItem['source'];

/**
 * Marks every demo source by name, wherever a source name appears (signals, feeds, exports, the
 * widget), without changing the source's shape; their domains are all reserved `.example` ones
 * (RFC 2606), so nothing fabricated is ever attributed to a real outlet.
 */
export const DEMO_SOURCE_SUFFIX = ' (demo)';

/** One shared source object per outlet: a million signals need not carry a million copies. */
const SOURCE_PAYLOADS = new Map<DemoSource, ItemSource>(
  SOURCES.map((s) => [
    s,
    {
      name: `${s.name}${DEMO_SOURCE_SUFFIX}`,
      url: `https://${s.domain}`,
      tier: s.tier,
      language: s.language,
    },
  ]),
);

const sourceCandidates = new Map<string, readonly DemoSource[]>();

function sourcesCovering(region: Region | null, layer: Layer): readonly DemoSource[] {
  const key = `${region}|${layer}`;
  let found = sourceCandidates.get(key);
  if (!found) {
    found = SOURCES.filter(
      (s) =>
        (!s.regions || (region !== null && s.regions.includes(region))) &&
        (!s.layers || s.layers.includes(layer)),
    );
    sourceCandidates.set(key, found);
  }
  return found;
}

interface Person {
  title: string;
  name: string;
  /** How headlines refer to the person; the last word of the name unless set. */
  short?: string;
}

interface Org {
  /** As written in running text, with "the" where English needs it. */
  name: string;
  /** Headline form, e.g. an acronym the entity gazetteer resolves; the name without "the" unless set. */
  short?: string;
}

interface Storyline {
  layer: Layer;
  codes: readonly string[];
  city: string;
  /** When the story begins, in days before `now`. */
  startDaysAgo: number;
  /** When it resolves, in days before `now`; negative means still running after `now`. */
  endDaysAgo: number;
  /** Added to the phase's base score: how grave the story is. */
  severity: number;
  /** Relative share of storyline signals. */
  weight: number;
  subject: string;
  people: readonly [Person, Person];
  orgs: readonly [Org, Org];
  terms: readonly string[];
  /** For stories the layer's generic templates cannot tell. */
  templates?: PhaseTemplates;
}

const who = (title: string, name: string, short?: string): Person => ({ title, name, short });
const org = (name: string, short?: string): Org => ({ name, short });

const STORYLINES: readonly Storyline[] = [
  {
    layer: 'military',
    codes: ['SD'],
    city: 'El Fasher',
    startDaysAgo: 27,
    endDaysAgo: -5,
    severity: 1.8,
    weight: 3,
    subject: 'the siege of El Fasher',
    people: [who('Gen.', 'Tarek Osman'), who('RSF commander', 'Hamid Dagash')],
    orgs: [org('the Sudanese Armed Forces', 'SAF'), org('the Rapid Support Forces', 'RSF')],
    terms: [
      'drone strikes',
      'artillery shelling',
      'attacks on displacement camps',
      'fighting over supply routes',
    ],
  },
  {
    layer: 'health',
    codes: ['SD'],
    city: 'Port Sudan',
    startDaysAgo: 11,
    endDaysAgo: -10,
    severity: 1.5,
    weight: 2,
    subject: 'the cholera outbreak',
    people: [who('Health Minister', 'Amina Yousif'), who('Dr.', 'Karim Haddad')],
    orgs: [org('the World Health Organization', 'WHO'), org('Médecins Sans Frontières', 'MSF')],
    terms: ['oral vaccination', 'treatment centres', 'clean water supplies', 'rehydration kits'],
  },
  {
    layer: 'military',
    codes: ['UA', 'RU'],
    city: 'Kharkiv',
    startDaysAgo: 29,
    endDaysAgo: -5,
    severity: 1.6,
    weight: 3,
    subject: 'the offensive near Kharkiv',
    people: [who('Gen.', 'Oleksandr Tkachenko'), who('Col.', 'Dmitry Volkov')],
    orgs: [org('the Armed Forces of Ukraine', 'Ukraine'), org('the Russian Defence Ministry', 'Russia')],
    terms: ['glide bomb attacks', 'artillery duels', 'drone strikes', 'strikes on frontline villages'],
  },
  {
    layer: 'cyber',
    codes: ['UA'],
    city: 'Kyiv',
    startDaysAgo: 9,
    endDaysAgo: -5,
    severity: 1.3,
    weight: 2,
    subject: 'the cyberattacks on the power grid',
    people: [who('State Cyber Agency Director', 'Olena Marchenko'), who('Energy Minister', 'Taras Bondar')],
    orgs: [org('the Frostbite Group'), org('the State Cyber Protection Centre')],
    terms: [
      'wiper malware',
      'hijacked industrial controllers',
      'spear-phishing emails',
      'stolen VPN credentials',
    ],
  },
  {
    layer: 'cyber',
    codes: ['DE', 'AT'],
    city: 'Berlin',
    startDaysAgo: 21,
    endDaysAgo: 6,
    severity: 1.0,
    weight: 2,
    subject: 'the ransomware campaign against hospitals',
    people: [who('Dr.', 'Katrin Vogel'), who('government spokesman', 'Markus Brandt')],
    orgs: [
      org('the BlackHarbor Group', 'BlackHarbor Group'),
      org('the Federal Office for Information Security', 'BSI'),
    ],
    terms: [
      'double-extortion ransomware',
      'stolen remote-access credentials',
      'a zero-day exploit',
      'malicious email attachments',
    ],
  },
  {
    layer: 'supply_chain',
    codes: ['NL'],
    city: 'Rotterdam',
    startDaysAgo: 18,
    endDaysAgo: 8,
    severity: 0.8,
    weight: 2,
    subject: 'the dockworkers strike',
    people: [who('Union leader', 'Pieter Janssen'), who('Port Authority CEO', 'Sanne Visser')],
    orgs: [org('Maersk'), org('the Port of Rotterdam Authority', 'Port of Rotterdam')],
    terms: ['container traffic', 'terminal operations', 'vessel schedules', 'barge traffic'],
  },
  {
    layer: 'supply_chain',
    codes: ['YE', 'EG'],
    city: 'Aden',
    startDaysAgo: 25,
    endDaysAgo: -5,
    severity: 1.4,
    weight: 2,
    subject: 'the Houthi attacks on Red Sea shipping',
    people: [who('Adm.', 'James Whitfield'), who('Suez Canal Authority Chairman', 'Khaled Mansour')],
    orgs: [org('Maersk'), org('the Suez Canal Authority')],
    terms: ['container traffic', 'Suez Canal transits', 'war-risk insurance', 'tanker routes'],
  },
  {
    layer: 'economic',
    codes: ['NG'],
    city: 'Lagos',
    startDaysAgo: 16,
    endDaysAgo: -5,
    severity: 1.3,
    weight: 2,
    subject: 'the naira crisis',
    people: [who('CBN Governor', 'Musa Adeyemi'), who('Finance Minister', 'Chinwe Okafor')],
    orgs: [org('the Central Bank of Nigeria', 'CBN'), org('the International Monetary Fund', 'IMF')],
    terms: ['the naira', 'foreign-exchange reserves', 'the Lagos stock market', 'Nigerian bonds'],
  },
  {
    layer: 'criminal',
    codes: ['NG'],
    city: 'Maiduguri',
    startDaysAgo: 7,
    endDaysAgo: -5,
    severity: 1.5,
    weight: 2,
    subject: 'the wave of kidnappings',
    people: [who('Police Commissioner', 'Ibrahim Bello'), who('Governor', 'Aliyu Kachalla')],
    orgs: [org('the Zamfara Bandit Network'), org('the Nigeria Police Force', 'Nigerian police')],
    terms: ['mass abductions', 'attacks on highway checkpoints', 'night raids on villages', 'ransom demands'],
  },
  {
    layer: 'criminal',
    codes: ['HT'],
    city: 'Port-au-Prince',
    startDaysAgo: 28,
    endDaysAgo: -5,
    severity: 1.5,
    weight: 2,
    subject: 'the gang offensive',
    people: [who('Police Chief', 'Frantz Delva'), who('Prime Minister', 'Josué Pierre')],
    orgs: [org('the Delmas Coalition'), org('the Haitian National Police', 'Haitian police')],
    terms: ['attacks on the fuel terminal', 'armed roadblocks', 'kidnappings for ransom', 'arson attacks'],
  },
  {
    layer: 'criminal',
    codes: ['MX', 'US'],
    city: 'Culiacán',
    startDaysAgo: 22,
    endDaysAgo: -5,
    severity: 1.3,
    weight: 2,
    subject: 'the cartel violence',
    people: [who('Gen.', 'Ricardo Fuentes'), who('Security Secretary', 'Laura Mendoza')],
    orgs: [org('the Sinaloa Cartel'), org('the Mexican Army')],
    terms: [
      'arson attacks on vehicles',
      'clashes between rival factions',
      'targeted killings',
      'armed roadblocks',
    ],
  },
  {
    layer: 'economic',
    codes: ['US', 'CN'],
    city: 'Washington',
    startDaysAgo: 14,
    endDaysAgo: -5,
    severity: 1.0,
    weight: 2,
    subject: 'the chip export ban',
    people: [who('Commerce Secretary', 'Rachel Greene'), who('Commerce Ministry spokesman', 'Li Wei', 'Li')],
    orgs: [org('Nvidia'), org('TSMC')],
    terms: ['rare earth exports', 'chip supply chains', 'gallium exports', 'data centre buildouts'],
    templates: {
      titles: {
        crisis: [
          'Washington bans advanced chip exports to China',
          '{A} shares fall as chip export ban takes effect',
          'China vows response after Washington tightens chip export rules',
        ],
        update: [
          '{Q} says Beijing will respond to chip export ban',
          '{A} seeks licences to keep some China sales alive',
          '{P} defends chip export ban before Senate committee',
          'Chipmakers weigh hit from export ban on {B} orders',
        ],
        resolution: [
          'Washington and Beijing agree to ease chip export curbs',
          'Export licences resume for {A} after trade talks',
        ],
      },
      leads: {
        crisis: [
          '{P} announced a ban on exports of advanced semiconductors to China, saying the measure would protect national security.',
          'Shares of {A} and {B} fell sharply after {P} confirmed new export controls on advanced chips.',
        ],
        update: [
          '{Q} said China would take countermeasures against the chip export ban, including limits on {term}.',
          '{A} said it had applied for licences to continue some sales to China, {P} told reporters in {city}.',
          'Analysts said the export ban could cut {A} revenue by {pct} percent this year.',
        ],
        resolution: [
          '{P} said Washington and Beijing had agreed to ease some export curbs after talks in {city}.',
          '{A} said it had received licences to resume shipments of some chips to China.',
        ],
      },
      details: ['{Q} called the measures discriminatory.', 'Industry groups warned of disruption to {term}.'],
    },
  },
  {
    layer: 'military',
    codes: ['TW', 'CN'],
    city: 'Taipei',
    startDaysAgo: 6,
    endDaysAgo: -5,
    severity: 1.4,
    weight: 1.5,
    subject: 'the military drills around Taiwan',
    people: [
      who('Defense Minister', 'Chen Wei-lun', 'Chen'),
      who('Coast Guard Director', 'Lin Mei-hua', 'Lin'),
    ],
    orgs: [org("the People's Liberation Army", 'PLA'), org('the Taiwan Coast Guard')],
    terms: ['live-fire exercises', 'mock strikes on ports', 'air incursions', 'a blockade rehearsal'],
    templates: {
      titles: {
        crisis: [
          'China launches large-scale military drills around Taiwan',
          '{A} warships encircle Taiwan in live-fire exercises',
          'Taiwan scrambles jets as {A} drills intensify',
        ],
        update: [
          '{P} says {A} rehearsing blockade of Taiwan',
          '{B} shadows Chinese vessels near Taiwan Strait',
          'Taiwan reports {n} Chinese military aircraft near the island',
          'Shipping firms monitor Taiwan Strait as drills continue',
        ],
        resolution: [
          'China declares end to military drills around Taiwan',
          '{A} vessels withdraw as drills around Taiwan end',
        ],
      },
      leads: {
        crisis: [
          '{A} began large-scale drills around Taiwan on {weekday}, deploying warships and aircraft in what {P} called a rehearsal for a blockade.',
          '{P} said {n} Chinese warships and dozens of aircraft had been detected near Taiwan, putting air defence units in {city} on alert.',
        ],
        update: [
          '{Q} said {B} vessels were shadowing Chinese ships near the Taiwan Strait as {term} continued.',
          '{P} said {A} had staged {term} east of the island and that Taiwan would not be intimidated.',
          'Taiwan reported {n} Chinese military aircraft near the island in the past 24 hours, {P} said.',
        ],
        resolution: [
          '{A} announced the end of its drills around Taiwan, and {P} said forces would remain on alert.',
          'Chinese warships withdrew from waters near Taiwan, {Q} said, as the exercises wound down.',
        ],
      },
      details: [
        'Shipping companies said they were monitoring the Taiwan Strait closely.',
        '{Q} said {B} had stepped up patrols around outlying islands.',
      ],
    },
  },
  {
    layer: 'disaster',
    codes: ['PK'],
    city: 'Karachi',
    startDaysAgo: 20,
    endDaysAgo: 3,
    severity: 1.2,
    weight: 2,
    subject: 'the monsoon floods',
    people: [
      who('National Disaster Management Authority Chairman', 'Asif Raza'),
      who('Chief Minister', 'Sana Baloch'),
    ],
    orgs: [org('the National Disaster Management Authority'), org('UNICEF')],
    terms: ['rising floodwaters', 'breached embankments', 'waterborne disease', 'landslides'],
  },
  {
    layer: 'political',
    codes: ['BD'],
    city: 'Dhaka',
    startDaysAgo: 10,
    endDaysAgo: -5,
    severity: 1.0,
    weight: 1.5,
    subject: 'the disputed election',
    people: [who('Chief Election Commissioner', 'Rafiq Hossain'), who('opposition leader', 'Farida Rahman')],
    orgs: [org('the Election Commission'), org('the National Citizens Front')],
    terms: ['the vote count', 'alleged ballot stuffing', 'the handling of protests', 'a partial recount'],
  },
  {
    layer: 'political',
    codes: ['VE'],
    city: 'Caracas',
    startDaysAgo: 29,
    endDaysAgo: 12,
    severity: 1.1,
    weight: 1.5,
    subject: 'the post-election standoff',
    people: [who('Interior Minister', 'Héctor Rangel'), who('opposition leader', 'María Castillo')],
    orgs: [org('the National Electoral Council'), org('the Democratic Unity Coalition')],
    terms: [
      'disputed tally sheets',
      'the crackdown on protests',
      'arrests of activists',
      'the electoral timetable',
    ],
  },
  {
    layer: 'military',
    codes: ['CD', 'RW'],
    city: 'Goma',
    startDaysAgo: 24,
    endDaysAgo: -5,
    severity: 1.6,
    weight: 2,
    subject: 'the M23 offensive',
    people: [who('Gen.', 'Jean-Pierre Kabongo'), who('rebel spokesman', 'Patrick Bisimwa')],
    orgs: [org('the Congolese army (FARDC)', 'FARDC'), org('M23')],
    terms: ['mortar fire', 'shelling near refugee camps', 'fighting over mining towns', 'drone strikes'],
  },
  {
    layer: 'military',
    codes: ['LB', 'IL'],
    city: 'Beirut',
    startDaysAgo: 19,
    endDaysAgo: 4,
    severity: 1.4,
    weight: 2,
    subject: 'the cross-border strikes',
    people: [who('Gen.', 'Avi Mizrahi'), who('UNIFIL spokesman', 'Marco Bellini')],
    orgs: [org('the Israel Defense Forces', 'IDF'), org('Hezbollah')],
    terms: ['rocket fire', 'airstrikes on border villages', 'drone strikes', 'artillery fire'],
  },
  {
    layer: 'economic',
    codes: ['EG'],
    city: 'Cairo',
    startDaysAgo: 13,
    endDaysAgo: 1,
    severity: 0.9,
    weight: 1.5,
    subject: 'the currency crisis',
    people: [who('Governor', 'Hisham Fawzy'), who('Finance Minister', 'Nadia Farouk')],
    orgs: [org('the Central Bank of Egypt'), org('the International Monetary Fund', 'IMF')],
    terms: ['the Egyptian pound', 'foreign-currency reserves', 'Egyptian bonds', 'the Cairo stock market'],
  },
  {
    layer: 'economic',
    codes: ['AR'],
    city: 'Buenos Aires',
    startDaysAgo: 27,
    endDaysAgo: 10,
    severity: 0.8,
    weight: 1,
    subject: 'the peso slide',
    people: [who('Economy Minister', 'Martín Ferreyra'), who('union leader', 'Carla Benítez')],
    orgs: [org('the Central Bank of Argentina'), org('the International Monetary Fund', 'IMF')],
    terms: ['the peso', 'dollar reserves', 'Argentine bonds', 'the Buenos Aires stock market'],
  },
  {
    layer: 'disaster',
    codes: ['BR'],
    city: 'Manaus',
    startDaysAgo: 17,
    endDaysAgo: -5,
    severity: 1.0,
    weight: 1.5,
    subject: 'the Amazon wildfires',
    people: [who('Environment Minister', 'Ana Ribeiro'), who('Governor', 'Eduardo Prado')],
    orgs: [org('IBAMA'), org('the Red Cross')],
    terms: ['fire hotspots', 'thick smoke haze', 'record-low river levels', 'spreading fires'],
  },
  {
    layer: 'disaster',
    codes: ['PH'],
    city: 'Manila',
    startDaysAgo: 15,
    endDaysAgo: 7,
    severity: 1.2,
    weight: 1.5,
    subject: 'the typhoon',
    people: [who('Mayor', 'Maria Santos'), who('Defense Secretary', 'Gilberto Reyes')],
    orgs: [org('the Office of Civil Defense'), org('the Red Cross')],
    terms: ['storm surges', 'landslides', 'flooding', 'downed power lines'],
  },
  {
    layer: 'political',
    codes: ['ML', 'BF'],
    city: 'Bamako',
    startDaysAgo: 23,
    endDaysAgo: -5,
    severity: 1.1,
    weight: 1.5,
    subject: 'the transition crisis',
    people: [who('Col.', 'Seydou Keita'), who('ECOWAS envoy', 'Amadou Diallo')],
    orgs: [org('the National Transition Council'), org('the Movement for Democratic Renewal')],
    terms: [
      'the suspension of political parties',
      'an overnight curfew',
      'the transition timetable',
      'the fuel blockade',
    ],
  },
  {
    layer: 'political',
    codes: ['KE'],
    city: 'Nairobi',
    startDaysAgo: 12,
    endDaysAgo: 2,
    severity: 1.0,
    weight: 1.5,
    subject: 'the tax protests',
    people: [who('Interior Secretary', 'Peter Wanjala'), who('activist', 'Wanjiru Kamau')],
    orgs: [org('the Kenyan Parliament'), org('the Law Society of Kenya')],
    terms: ['the finance bill', 'police use of tear gas', 'mass arrests', 'new fuel taxes'],
  },
  {
    layer: 'military',
    codes: ['KG', 'TJ'],
    city: 'Bishkek',
    startDaysAgo: 8,
    endDaysAgo: 2,
    severity: 1.2,
    weight: 1,
    subject: 'the border clashes',
    people: [who('Col.', 'Azamat Bekov'), who('Col.', 'Rustam Nazarov')],
    orgs: [org('the Kyrgyz Border Service'), org('the Tajik Border Troops')],
    terms: ['mortar fire', 'drone strikes', 'fighting over a water intake', 'sniper fire'],
  },
  {
    layer: 'supply_chain',
    codes: ['EE', 'FI'],
    city: 'Tallinn',
    startDaysAgo: 11,
    endDaysAgo: 3,
    severity: 1.0,
    weight: 1,
    subject: 'the undersea cable damage',
    people: [who('Prime Minister', 'Kristina Laar'), who('Navy Commander', 'Jaan Tamm')],
    orgs: [org('the Nordlink Cable Company'), org('the Estonian Navy')],
    terms: ['data traffic', 'power links to Finland', 'Baltic shipping lanes', 'repair schedules'],
  },
  {
    layer: 'health',
    codes: ['CD', 'UG'],
    city: 'Kinshasa',
    startDaysAgo: 26,
    endDaysAgo: -5,
    severity: 1.1,
    weight: 1.5,
    subject: 'the mpox outbreak',
    people: [who('Dr.', 'Marie Kalala'), who('Health Minister', 'Joseph Mulumba')],
    orgs: [org('Africa CDC'), org('the World Health Organization', 'WHO')],
    terms: ['vaccination', 'contact tracing', 'isolation wards', 'laboratory testing'],
  },
  {
    layer: 'cyber',
    codes: ['KR', 'KP'],
    city: 'Seoul',
    startDaysAgo: 14,
    endDaysAgo: 4,
    severity: 1.1,
    weight: 1.5,
    subject: 'the crypto exchange hack',
    people: [who('Director', 'Park Ji-ho', 'Park'), who('Inspector', 'Kim Soo-jin', 'Kim')],
    orgs: [org('the Lazarus Group'), org('the National Intelligence Service')],
    terms: ['fake job offers', 'compromised developer accounts', 'stolen private keys', 'crypto mixers'],
  },
  {
    layer: 'health',
    codes: ['US'],
    city: 'Houston',
    startDaysAgo: 18,
    endDaysAgo: -5,
    severity: 0.9,
    weight: 1.5,
    subject: 'the measles outbreak',
    people: [who('Dr.', 'Emily Carter'), who('Health Commissioner', 'David Ortiz')],
    orgs: [
      org('the CDC', 'CDC'),
      org('the Texas Department of State Health Services', 'Texas health department'),
    ],
    terms: ['vaccination clinics', 'contact tracing', 'school exclusions', 'hospital capacity'],
  },
  {
    layer: 'disaster',
    codes: ['CA'],
    city: 'Vancouver',
    startDaysAgo: 20,
    endDaysAgo: 5,
    severity: 1.0,
    weight: 1.5,
    subject: 'the wildfires',
    people: [who('Premier', 'Laura Bennett'), who('Fire Chief', 'Daniel Moreau')],
    orgs: [org('the BC Wildfire Service'), org('the Canadian Armed Forces')],
    terms: ['spreading wildfires', 'thick smoke', 'shifting winds', 'downed power lines'],
  },
  {
    layer: 'political',
    codes: ['FR'],
    city: 'Paris',
    startDaysAgo: 9,
    endDaysAgo: -5,
    severity: 0.8,
    weight: 1,
    subject: 'the no-confidence vote',
    people: [who('Prime Minister', 'Claire Dubois'), who('Finance Minister', 'Julien Mercier')],
    orgs: [org('the National Assembly'), org('the Republican Left Alliance')],
    terms: ['the budget bill', 'spending cuts', 'pension reform', 'coalition talks'],
  },
  {
    layer: 'supply_chain',
    codes: ['IN'],
    city: 'Mumbai',
    startDaysAgo: 16,
    endDaysAgo: 2,
    severity: 0.9,
    weight: 1,
    subject: 'the drug ingredient shortage',
    people: [who('Drug Controller General', 'Rajiv Menon'), who('CEO', 'Priya Nair')],
    orgs: [
      org('the Indian Pharmaceutical Alliance'),
      org('the Central Drugs Standard Control Organisation', 'drug regulator'),
    ],
    terms: ['antibiotic supplies', 'ingredient imports', 'generic drug exports', 'hospital stockpiles'],
  },
];

/** Sudden events in the last six hours: spikes far above their country/layer baseline. */
const BURSTS: readonly Storyline[] = [
  {
    layer: 'disaster',
    codes: ['TR'],
    city: 'Izmir',
    startDaysAgo: 0.25,
    endDaysAgo: -1,
    severity: 1.8,
    weight: 1,
    subject: 'the earthquake',
    people: [who('Interior Minister', 'Kemal Aydin'), who('Dr.', 'Zeynep Arslan')],
    orgs: [org('AFAD'), org('the Red Crescent')],
    terms: ['aftershocks', 'collapsed buildings', 'damaged roads', 'unstable structures'],
  },
  {
    layer: 'cyber',
    codes: ['PL'],
    city: 'Warsaw',
    startDaysAgo: 0.25,
    endDaysAgo: -1,
    severity: 1.5,
    weight: 1,
    subject: 'the cyberattack on rail signalling',
    people: [
      who('Digital Affairs Minister', 'Tomasz Nowak'),
      who('Polish State Railways CEO', 'Agnieszka Zielinska'),
    ],
    orgs: [org('the Sandfly Group'), org('the Internal Security Agency')],
    terms: [
      'spoofed radio-stop commands',
      'compromised maintenance laptops',
      'GPS jamming',
      'stolen engineer credentials',
    ],
  },
  {
    layer: 'military',
    codes: ['LY'],
    city: 'Tripoli',
    startDaysAgo: 0.25,
    endDaysAgo: -1,
    severity: 1.6,
    weight: 1,
    subject: 'the clashes in Tripoli',
    people: [who('Interior Minister', 'Salem Gharyani'), who('Commander', 'Khalid Zentani')],
    orgs: [org('the Tripoli Protection Brigade'), org('the Presidential Guard')],
    terms: ['heavy gunfire', 'rocket fire', 'armoured vehicle movements', 'street fighting'],
  },
  {
    layer: 'disaster',
    codes: ['BD'],
    city: 'Chittagong',
    startDaysAgo: 0.25,
    endDaysAgo: -1,
    severity: 1.7,
    weight: 1,
    subject: 'the cyclone',
    people: [who('Disaster Management Minister', 'Tanvir Ahmed'), who('Dr.', 'Nasreen Akter')],
    orgs: [org('the Department of Disaster Management'), org('the Red Crescent')],
    terms: ['storm surges', 'breached coastal embankments', 'flooding', 'downed power lines'],
  },
];

const STORYLINE_WEIGHTS = cumulative(STORYLINES.map((s) => s.weight));

function cumulative(weights: readonly number[]): Float64Array {
  const total = weights.reduce((a, b) => a + b, 0);
  let running = 0;
  return Float64Array.from(weights, (w) => (running += w / total));
}

function pickWeighted<T>(rng: Rng, list: readonly T[], cumulativeWeights: Float64Array): T {
  const r = rng();
  const index = cumulativeWeights.findIndex((w) => r < w);
  return list[index < 0 ? list.length - 1 : index] as T;
}

/**
 * Placeholders: {A} {B} organisations ({a} {b} without a leading "the"; headlines use short forms),
 * {P} {Q} people with their titles, {city}, {country}, {subject}, {term}, {weekday} and the
 * numbers {n} {N} {pct} {bps} {dec} {mag}.
 */
interface PhaseTemplates {
  titles: Record<Valence, readonly string[]>;
  leads: Record<Valence, readonly string[]>;
  details: readonly string[];
}

const TEMPLATES: Record<Layer, PhaseTemplates> = {
  military: {
    titles: {
      crisis: [
        'Heavy fighting erupts near {city} as {A} presses assault',
        '{A} accuses {B} of deadly attack near {city}',
        'Dozens killed near {city} amid {term}',
        '{B} says it repelled major push toward {city}',
      ],
      update: [
        '{P} says troops holding lines around {city}',
        'Satellite images show damage from {term} near {city}',
        '{A} and {B} trade blame over {subject}',
        'Civilians flee {city} as {subject} drags on',
        'Talks on humanitarian corridor for {city} make little progress',
      ],
      resolution: [
        '{A} and {B} agree ceasefire around {city}',
        'Guns fall silent near {city} as truce takes hold',
        'Displaced families begin returning to {city} after ceasefire deal',
      ],
    },
    leads: {
      crisis: [
        '{A} launched a major assault near {city} early on {weekday}, according to {P}, who said {n} soldiers had been killed.',
        'Fighting between {A} and {B} spread to the outskirts of {city}, with residents reporting {term} through the night.',
        '{B} said it had repelled an attack near {city}, while {Q} accused {A} of targeting civilians.',
      ],
      update: [
        '{P} said troops were holding defensive lines around {city} despite continued {term}.',
        'Fresh {term} hit districts near {city}, local officials said, as {A} and {B} traded accusations over {subject}.',
        '{Q} told reporters that {B} would not withdraw from positions near {city}.',
        'Aid agencies said at least {N} people had fled {city} since {subject} began.',
      ],
      resolution: [
        '{A} and {B} agreed to a ceasefire covering {city}, {P} said, after mediators secured a prisoner exchange.',
        '{Q} said the truce around {city} was holding and that {B} had begun pulling back heavy weapons.',
        'Residents began returning to {city} as {subject} wound down, according to {P}.',
      ],
    },
    details: [
      '{P} said {A} had lost {n} armoured vehicles in the past week.',
      'The claims could not be independently verified.',
      '{Q} said {B} would respond to any further attacks.',
      'Hospitals in {city} reported treating {n} wounded civilians.',
    ],
  },
  cyber: {
    titles: {
      crisis: [
        '{A} claims cyberattack disrupting services across {country}',
        'Cyberattack cripples systems in {city}, {B} says',
        '{B} warns of ongoing cyber campaign linked to {A}',
        'Systems down across {city} after suspected {A} intrusion',
      ],
      update: [
        '{B} says {A} used {term} in latest intrusions',
        'Investigators trace {subject} to servers abroad, officials say',
        'Services in {city} partially restored after {subject}',
        '{P} urges operators to patch systems as attacks continue',
        'Second wave of attacks hits {country} as {A} leaks data',
      ],
      resolution: [
        '{B} says systems restored after {subject}',
        'Authorities disrupt {A} infrastructure in joint international operation',
        'Services in {city} back to normal weeks after cyberattack',
      ],
    },
    leads: {
      crisis: [
        'A cyberattack attributed to {A} disrupted services in {city} on {weekday}, {P} said, adding that emergency procedures were in place.',
        '{B} said it was responding to a coordinated intrusion by {A} that had affected at least {n} organisations across {country}.',
        'Hackers linked to {A} claimed responsibility for {subject}, posting samples of stolen data on a leak site.',
      ],
      update: [
        '{P} said investigators had linked {subject} to {A}, which used {term} to move through networks.',
        '{B} issued a new advisory on {A}, warning that {n} more operators in {country} had reported suspicious activity.',
        'Operators in {city} were still restoring systems, {Q} said, as the recovery effort continued.',
        '{Q} said {A} had demanded a ransom of ${n} million, which officials said would not be paid.',
      ],
      resolution: [
        '{B} said all affected systems in {city} had been restored and that {A} no longer had access.',
        'Law enforcement agencies seized servers used by {A}, {P} said, describing the operation as a significant blow.',
        '{P} said the response to {subject} had been completed, though forensic work on {term} would continue.',
      ],
    },
    details: [
      'There was no immediate evidence that personal data had been altered, {Q} said.',
      'Security researchers said the tooling resembled earlier {a} operations.',
      '{B} asked organisations to report any indicators of compromise.',
    ],
  },
  economic: {
    titles: {
      crisis: [
        '{subject} deepens as {A} holds emergency meeting',
        'Markets slide in {city} as {subject} worsens',
        '{A} raises rates by {bps} basis points to defend currency',
        'Shortages spread across {country} as pressure on {A} mounts',
      ],
      update: [
        '{P} says {A} will do whatever it takes',
        '{B} team arrives in {city} for talks on {subject}',
        'Prices of staples up {pct} percent in {country} this month',
        '{Q} unveils measures to cushion impact of {subject}',
        'Investors weigh {A} signals as markets stay volatile',
      ],
      resolution: [
        '{B} approves support package as {subject} eases',
        'Currency steadies after {A} measures, {P} says',
        'Markets in {country} recover as {subject} subsides',
      ],
    },
    leads: {
      crisis: [
        '{A} convened an emergency meeting in {city} on {weekday} as {subject} deepened, with {term} under heavy pressure.',
        '{P} said {A} would intervene after the currency fell {pct} percent in a week, the steepest drop in years.',
        'Traders in {city} reported shortages and panic buying as {subject} worsened, piling pressure on {A}.',
      ],
      update: [
        '{P} told lawmakers that {A} had sold ${n} billion in reserves to support the currency and would act again if needed.',
        'A delegation from {B} arrived in {city} to discuss financing as {subject} continued, {Q} said.',
        '{Q} announced targeted subsidies to cushion households from the slide in {term}, a move economists said would strain the budget.',
        'Inflation in {country} rose to {pct} percent, official data showed, as {subject} fed through to food prices.',
      ],
      resolution: [
        '{B} approved a ${n} billion support programme for {country}, which {P} said would restore confidence.',
        'Markets in {city} recovered as {subject} eased, with {P} saying the worst was over.',
        '{Q} said pressure on {term} had eased for a second week after {A} tightened policy.',
      ],
    },
    details: [
      'Analysts said {A} had limited room for manoeuvre.',
      '{Q} said the government would protect the poorest households.',
      'Bond yields in {country} rose to their highest level this year.',
    ],
  },
  disaster: {
    titles: {
      crisis: [
        'Dozens dead near {city} after {subject}',
        'Rescue teams race to reach survivors near {city}',
        '{A} declares emergency in {city} after {subject}',
        'Thousands displaced around {city} after {subject}',
      ],
      update: [
        'Death toll rises to {n} in {country} after {subject}',
        '{A} says {N} people sheltering around {city}',
        'Aid convoys reach cut-off areas near {city}, {B} says',
        '{P} warns of {term} as recovery begins in {city}',
        'Survivors near {city} describe chaos after {subject}',
      ],
      resolution: [
        '{A} lifts state of emergency in {city}',
        'Reconstruction begins in {city} weeks after {subject}',
        'Schools reopen near {city} as recovery from {subject} advances',
      ],
    },
    leads: {
      crisis: [
        '{A} said {subject} had killed at least {n} people around {city} and forced {N} from their homes.',
        '{P} declared a state of emergency in {city} on {weekday}, saying {term} had cut off roads and power to thousands of residents.',
        'Rescue teams from {A} and {B} searched for survivors near {city} after {subject}, officials said.',
      ],
      update: [
        '{A} said {N} people were sheltering in temporary camps around {city}, with {term} complicating relief efforts.',
        '{Q} said {B} had delivered food and water to {n} villages near {city} but many areas remained unreachable.',
        'The death toll from {subject} rose to {n}, {P} said, as crews cleared debris in {city}.',
        '{P} warned that {term} posed a growing risk to displaced families near {city}.',
      ],
      resolution: [
        '{A} lifted the state of emergency in {city}, {P} said, as reconstruction work began.',
        '{B} scaled back its emergency operation near {city}, saying most displaced families had returned home.',
        'Schools and markets in {city} reopened for the first time since {subject}, {Q} said.',
      ],
    },
    details: [
      '{A} said assessments of damaged infrastructure were continuing.',
      '{Q} appealed for international support.',
      'Power and mobile networks were partly restored in {city}.',
    ],
  },
  political: {
    titles: {
      crisis: [
        'Protests erupt in {city} over {subject}',
        'Tensions rise in {city} as {B} calls supporters onto streets',
        '{P} defends {A} amid mounting criticism',
        'Security forces disperse crowds in {city} as anger grows',
      ],
      update: [
        '{Q} calls for independent review of {subject}',
        '{A} meets as pressure builds over {subject}',
        'Dozens arrested in {city} after fresh overnight protests',
        '{P} offers talks with {B} as standoff continues',
        'Diplomats urge restraint in {country} as {subject} drags on',
      ],
      resolution: [
        '{A} and {B} reach agreement to end {subject}',
        'Calm returns to {city} after deal between {A} and {B}',
        '{P} announces compromise, easing tensions in {country}',
      ],
    },
    leads: {
      crisis: [
        'Thousands took to the streets of {city} on {weekday} over {subject}, and police used tear gas to disperse crowds, witnesses said.',
        '{Q} said {B} would not recognise decisions by {A}, deepening {subject}.',
        '{P} defended {A} against criticism over {term}, as opposition groups called for fresh protests in {city}.',
      ],
      update: [
        '{Q} called for an independent review of {term}, saying {B} had documented irregularities in {n} districts.',
        '{A} met behind closed doors in {city}, {P} said, as pressure mounted over {subject}.',
        'Police in {city} said {n} people had been arrested after overnight protests linked to {subject}.',
        'Foreign diplomats in {city} urged {A} and {B} to resolve {subject} through dialogue.',
      ],
      resolution: [
        '{A} and {B} signed an agreement in {city} to end {subject}, {P} said.',
        '{Q} welcomed the compromise, saying {B} would return to talks with {A}.',
        'Streets in {city} were calm after {P} announced concessions on {term}.',
      ],
    },
    details: [
      'Observers from regional bodies are expected to publish a report next week.',
      '{Q} said further protests had not been ruled out.',
      'Internet access in parts of {city} was restricted, monitoring groups said.',
    ],
  },
  criminal: {
    titles: {
      crisis: [
        'Gunmen kill {n} in {city} as {A} violence flares',
        '{B} deploys reinforcements to {city} after deadly attacks',
        'Wave of violence grips {city} amid {term}',
        'Residents of {city} shelter indoors as armed groups roam streets',
      ],
      update: [
        '{B} arrests {n} suspects linked to {A}',
        '{P} vows to restore order in {city}',
        'Schools in {city} remain shut as {subject} continues',
        '{B} seizes weapons in raids against {A}',
        'Families of victims in {city} demand answers from authorities',
      ],
      resolution: [
        '{B} regains control of key districts in {city}',
        'Senior {A} figure detained as violence in {city} subsides',
        'Roads reopen in {city} after weeks of {A} violence',
      ],
    },
    leads: {
      crisis: [
        'Gunmen linked to {A} killed at least {n} people in {city} on {weekday}, {P} said, in the worst violence in months.',
        '{B} sent reinforcements to {city} after fighters from {A} set up roadblocks and attacked police posts, {Q} said.',
        'Residents of {city} described {term} as {A} tightened its grip on several neighbourhoods.',
      ],
      update: [
        '{B} said it had arrested {n} suspects linked to {A} and seized rifles and ammunition in raids around {city}.',
        '{P} vowed to restore order, saying {B} would remain deployed in {city} until {subject} ended.',
        '{Q} said {term} had forced {N} families to leave their homes in and around {city}.',
        'Prosecutors charged {n} members of {A} over {subject}, {P} said.',
      ],
      resolution: [
        '{B} said it had regained control of key districts in {city}, and {P} described the operation as a turning point.',
        'A senior {a} commander was detained near {city}, {Q} said, as violence subsided.',
        'Shops and schools reopened in {city} after weeks of {a} violence, residents said.',
      ],
    },
    details: [
      'Human rights groups urged {B} to protect civilians during operations.',
      '{Q} said intelligence-led raids would continue.',
      'Local media reported that {n} vehicles had been set on fire.',
    ],
  },
  health: {
    titles: {
      crisis: [
        '{country} declares emergency as {subject} spreads to {city}',
        '{A} warns of rapid spread of {subject} in {country}',
        'Hospitals in {city} overwhelmed by surge in cases',
        'Deaths rise to {n} as {subject} spreads near {city}',
      ],
      update: [
        '{A} ships {N} vaccine doses to {country}',
        '{P} says response to {subject} being expanded in {city}',
        'Case numbers climb in {city} despite expanded {term}',
        '{B} opens new treatment centre near {city}',
        '{Q} warns {subject} could spread to neighbouring regions',
      ],
      resolution: [
        '{A} says {subject} in {country} under control',
        'No new cases reported in {city} for two weeks',
        '{country} ends health emergency as {subject} recedes',
      ],
    },
    leads: {
      crisis: [
        '{P} declared a health emergency on {weekday} after {n} deaths were linked to {subject} in and around {city}.',
        '{A} said {subject} was spreading rapidly in {country}, with {N} suspected cases reported in the past week.',
        'Doctors in {city} said hospitals were overwhelmed, and {B} warned of shortages affecting {term}.',
      ],
      update: [
        '{A} said it had shipped {N} vaccine doses to {country}, and {P} said {term} would be expanded in {city}.',
        '{B} opened a new treatment centre near {city}, {Q} said, as case numbers continued to rise.',
        'Health officials reported {n} new deaths linked to {subject}, adding pressure on clinics in {city}.',
        '{Q} said {B} teams were focusing on {term} in the worst-affected districts of {city}.',
      ],
      resolution: [
        '{A} said {subject} in {country} was under control after no new cases were recorded in {city} for two weeks.',
        '{P} lifted the health emergency, crediting {term} and the work of {B}.',
        '{B} began handing over treatment centres near {city} to local authorities as {subject} receded.',
      ],
    },
    details: [
      'Officials urged residents to seek care early if symptoms appeared.',
      '{Q} said funding for the response covered only part of the needs.',
      'Neighbouring countries stepped up screening at border crossings.',
    ],
  },
  supply_chain: {
    titles: {
      crisis: [
        'Shipping disrupted near {city} amid {subject}',
        '{A} halts operations in {city} amid {subject}',
        'Freight rates jump {pct} percent after disruption near {city}',
        'Manufacturers in {country} warn of shortages amid {subject}',
      ],
      update: [
        '{A} reroutes vessels to avoid disruption near {city}',
        'Backlog of {N} containers builds up near {city}',
        '{P} says talks with {B} to resume next week',
        '{B} estimates daily losses of ${n} million from {subject}',
        'Importers in {country} report delays of up to {n} days',
      ],
      resolution: [
        'Operations resume in {city} after deal between {A} and {B}',
        '{B} reports normal traffic in {city} for first time in weeks',
        '{A} restores schedules after weeks of disruption near {city}',
      ],
    },
    leads: {
      crisis: [
        '{A} suspended operations in {city} on {weekday} amid {subject}, leaving dozens of vessels waiting offshore, {P} said.',
        'Freight rates on routes through {city} jumped {pct} percent in a week, brokers said, as {subject} disrupted {term}.',
        '{B} said {subject} had halted most traffic around {city}, and {Q} warned of knock-on shortages across {country}.',
      ],
      update: [
        '{A} said it would reroute vessels to avoid delays in {city}, adding {n} days to some voyages.',
        'A backlog of {N} containers had built up in {city}, {B} said, as concerns grew over {term}.',
        '{P} said talks with {B} on ending {subject} would resume next week.',
        'Importers in {country} reported delays of up to {n} days, and {Q} said insurance costs had doubled.',
      ],
      resolution: [
        'Operations in {city} returned to normal after {A} and {B} reached an agreement, {P} said.',
        '{B} reported normal traffic around {city} for the first time in weeks, and {A} restored its schedules.',
        '{Q} said the backlog in {city} had been cleared following the end of {subject}.',
      ],
    },
    details: [
      'Retailers warned that delays could push up prices.',
      '{Q} said contingency plans were in place for critical cargo.',
      'Analysts estimated losses of ${n} million a day.',
    ],
  },
};

/** Shared closing sentences, used sparingly to vary length. */
const GENERIC_DETAILS: readonly string[] = [
  'Local media in {country} reported similar accounts.',
  'Officials said more details would be released later in the day.',
  '{B} did not respond to a request for comment.',
  'Analysts expect further developments in the coming days.',
];

interface BackgroundTemplate {
  title: string;
  content: string;
}

const BACKGROUND: Record<Layer, readonly BackgroundTemplate[]> = {
  military: [
    {
      title: 'Clashes reported on outskirts of {city}, officials say',
      content:
        'Local officials in {city} reported an exchange of fire overnight. No casualties were immediately confirmed.',
    },
    {
      title: 'Military convoy seen moving toward {city} on {weekday}',
      content:
        'Residents posted videos of armoured vehicles heading toward {city}. The defence ministry declined to comment.',
    },
    {
      title: 'Air defences shoot down drone near {city}, military says',
      content:
        'Air defence units in {country} shot down a drone near {city}, the military said in a statement.',
    },
  ],
  cyber: [
    {
      title: 'Government websites in {country} hit by denial-of-service attack',
      content:
        'Several government websites in {country} were unreachable for hours on {weekday} after a distributed denial-of-service attack, officials said.',
    },
    {
      title: 'Data breach at {city} utility exposes customer records',
      content:
        'A utility company in {city} said attackers had accessed the records of about {N} customers. The incident has been reported to regulators.',
    },
    {
      title: 'Phishing campaign impersonating banks targets customers in {country}',
      content:
        'Security researchers warned of a phishing campaign impersonating banks in {country}, using text messages that link to fake login pages.',
    },
  ],
  economic: [
    {
      title: 'Fuel prices rise for third straight week in {country}',
      content: 'Fuel prices in {country} rose again this week, adding to pressure on households in {city}.',
    },
    {
      title: 'Stock index in {city} falls {dec} percent on growth worries',
      content:
        'Shares in {city} fell {dec} percent on {weekday} as weak factory data raised concerns about growth.',
    },
    {
      title: '{country} posts wider trade deficit as energy imports climb',
      content:
        '{country} reported a wider trade deficit for the quarter, driven by higher energy import costs, official data showed.',
    },
  ],
  disaster: [
    {
      title: 'Flash floods hit districts near {city} after heavy rain',
      content:
        'Heavy rain triggered flash floods near {city} on {weekday}, damaging homes and roads, local authorities said.',
    },
    {
      title: 'Magnitude {mag} earthquake shakes {city}, no damage reported',
      content:
        'A moderate earthquake was felt in {city} on {weekday}. There were no immediate reports of damage or casualties.',
    },
    {
      title: 'Wildfire forces evacuation of villages near {city}',
      content:
        'Firefighters battled a wildfire near {city}, and authorities ordered residents of {n} villages to evacuate.',
    },
  ],
  political: [
    {
      title: 'Opposition rally draws thousands in {city} on {weekday}',
      content:
        'Thousands attended an opposition rally in {city}, calling for early elections and the release of detained activists.',
    },
    {
      title: 'Government of {country} announces cabinet reshuffle amid criticism',
      content:
        'The government of {country} replaced {n} ministers in a cabinet reshuffle amid criticism of its economic record.',
    },
    {
      title: 'Lawmakers in {country} debate contested media law',
      content:
        'Lawmakers in {country} debated a contested media law that critics say would restrict press freedom.',
    },
  ],
  criminal: [
    {
      title: 'Police seize cocaine worth millions in {city} port raid',
      content: 'Police in {city} seized {n} tonnes of cocaine hidden in a shipment of fruit, officials said.',
    },
    {
      title: 'Dozens of inmates escape prison near {city} after attack',
      content:
        'Dozens of inmates escaped from a prison near {city} after gunmen attacked the facility, authorities said.',
    },
    {
      title: 'Gunmen attack cash convoy near {city}, wounding two guards',
      content:
        'Gunmen attacked a cash-in-transit convoy near {city} on {weekday}, police said. Two guards were wounded.',
    },
  ],
  health: [
    {
      title: 'Dengue cases rise sharply in {city}, health officials say',
      content:
        'Health officials in {city} reported a rise in dengue cases and urged residents to remove standing water.',
    },
    {
      title: 'Hospital workers in {country} strike over pay and conditions',
      content:
        'Nurses and junior doctors in {country} began a strike over pay, disrupting services in {city}.',
    },
    {
      title: 'Measles vaccination drive launched across {country} after cases rise',
      content: 'Health authorities in {country} launched a measles vaccination drive targeting {N} children.',
    },
  ],
  supply_chain: [
    {
      title: 'Truck drivers block highway near {city} over fuel costs',
      content:
        'Truck drivers blocked a key highway near {city}, delaying deliveries of goods, local media reported.',
    },
    {
      title: 'Port congestion builds in {city} as ships wait to berth',
      content: 'Ships waited an average of {n} days to berth in {city} this week, according to port data.',
    },
    {
      title: 'Factory fire near {city} disrupts electronics supply chain',
      content:
        'A fire at a components factory near {city} is expected to disrupt supplies for several weeks, the company said.',
    },
  ],
};

interface NativeTemplates {
  topics: Record<Layer, string>;
  titles: Record<Valence, string>;
  contents: Record<Valence, string>;
}

/** Short reports in the outlet's own language; {place}, {topic} and {org} are filled in. */
const NATIVE: Record<string, NativeTemplates> = {
  fr: {
    topics: {
      military: 'affrontements armés',
      cyber: 'cyberattaque',
      economic: 'crise monétaire',
      disaster: 'catastrophe naturelle',
      political: 'crise politique',
      criminal: 'violences criminelles',
      health: 'épidémie',
      supply_chain: 'perturbations logistiques',
    },
    titles: {
      crisis: '{place} : {topic}, la situation se dégrade',
      update: '{place} : {topic}, le point sur la situation',
      resolution: '{place} : {topic}, retour progressif au calme',
    },
    contents: {
      crisis:
        "Selon nos correspondants à {place}, la situation s'est fortement dégradée. {org} appelle à la retenue.",
      update: "Les autorités de {place} font état d'une situation toujours tendue, selon {org}.",
      resolution: 'La situation se normalise à {place}, a indiqué {org}.',
    },
  },
  es: {
    topics: {
      military: 'enfrentamientos armados',
      cyber: 'ciberataque',
      economic: 'crisis monetaria',
      disaster: 'desastre natural',
      political: 'crisis política',
      criminal: 'violencia criminal',
      health: 'epidemia',
      supply_chain: 'interrupciones logísticas',
    },
    titles: {
      crisis: '{place}: {topic}, la situación se agrava',
      update: '{place}: {topic}, últimas novedades',
      resolution: '{place}: {topic}, vuelve la calma',
    },
    contents: {
      crisis: 'Según fuentes locales en {place}, la situación se ha deteriorado. {org} pidió calma.',
      update: 'Las autoridades de {place} describen una situación todavía tensa, según {org}.',
      resolution: 'La situación se normaliza en {place}, informó {org}.',
    },
  },
  de: {
    topics: {
      military: 'bewaffnete Kämpfe',
      cyber: 'Cyberangriff',
      economic: 'Währungskrise',
      disaster: 'Naturkatastrophe',
      political: 'politische Krise',
      criminal: 'kriminelle Gewalt',
      health: 'Epidemie',
      supply_chain: 'Lieferkettenstörungen',
    },
    titles: {
      crisis: '{place}: {topic} – Lage spitzt sich zu',
      update: '{place}: {topic} – der aktuelle Stand',
      resolution: '{place}: {topic} – Lage beruhigt sich',
    },
    contents: {
      crisis:
        'Nach Berichten aus {place} hat sich die Lage deutlich verschärft. {org} ruft zur Zurückhaltung auf.',
      update: 'Die Behörden in {place} sprechen von einer weiterhin angespannten Lage, so {org}.',
      resolution: 'Die Lage in {place} normalisiert sich, teilte {org} mit.',
    },
  },
  pt: {
    topics: {
      military: 'confrontos armados',
      cyber: 'ataque cibernético',
      economic: 'crise cambial',
      disaster: 'desastre natural',
      political: 'crise política',
      criminal: 'violência criminosa',
      health: 'epidemia',
      supply_chain: 'interrupções logísticas',
    },
    titles: {
      crisis: '{place}: {topic}, situação se agrava',
      update: '{place}: {topic}, últimas atualizações',
      resolution: '{place}: {topic}, a calma retorna',
    },
    contents: {
      crisis: 'Segundo fontes locais em {place}, a situação se deteriorou. {org} pediu calma.',
      update: 'As autoridades de {place} relatam uma situação ainda tensa, segundo {org}.',
      resolution: 'A situação se normaliza em {place}, informou {org}.',
    },
  },
  ar: {
    topics: {
      military: 'اشتباكات مسلحة',
      cyber: 'هجوم إلكتروني',
      economic: 'أزمة عملة',
      disaster: 'كارثة طبيعية',
      political: 'أزمة سياسية',
      criminal: 'عنف إجرامي',
      health: 'تفشي وباء',
      supply_chain: 'اضطرابات في سلاسل الإمداد',
    },
    titles: {
      crisis: '{place}: {topic} وتدهور الأوضاع',
      update: '{place}: {topic} - آخر المستجدات',
      resolution: '{place}: {topic} - عودة الهدوء تدريجياً',
    },
    contents: {
      crisis: 'أفادت مصادر محلية في {place} بتدهور الأوضاع بشكل حاد، ودعت {org} إلى ضبط النفس.',
      update: 'قالت السلطات في {place} إن الوضع لا يزال متوتراً، بحسب {org}.',
      resolution: 'أعلنت {org} أن الأوضاع في {place} تعود إلى طبيعتها.',
    },
  },
  ru: {
    topics: {
      military: 'вооружённые столкновения',
      cyber: 'кибератака',
      economic: 'валютный кризис',
      disaster: 'стихийное бедствие',
      political: 'политический кризис',
      criminal: 'криминальное насилие',
      health: 'эпидемия',
      supply_chain: 'сбои в цепочках поставок',
    },
    titles: {
      crisis: '{place}: {topic}, ситуация обостряется',
      update: '{place}: {topic}, последние новости',
      resolution: '{place}: {topic}, обстановка нормализуется',
    },
    contents: {
      crisis:
        'По данным местных источников в {place}, ситуация резко ухудшилась. {org} призывает к сдержанности.',
      update: 'По словам представителей {org}, обстановка в {place} остаётся напряжённой.',
      resolution: 'Обстановка в {place} нормализуется, сообщили в {org}.',
    },
  },
  uk: {
    topics: {
      military: 'збройні зіткнення',
      cyber: 'кібератака',
      economic: 'валютна криза',
      disaster: 'стихійне лихо',
      political: 'політична криза',
      criminal: 'кримінальне насильство',
      health: 'епідемія',
      supply_chain: 'збої в ланцюгах постачання',
    },
    titles: {
      crisis: '{place}: {topic}, ситуація загострюється',
      update: '{place}: {topic}, останні новини',
      resolution: '{place}: {topic}, ситуація нормалізується',
    },
    contents: {
      crisis:
        'За даними місцевих джерел у {place}, ситуація різко погіршилася. {org} закликає до стриманості.',
      update: 'За словами представників {org}, ситуація в {place} залишається напруженою.',
      resolution: 'Ситуація в {place} нормалізується, повідомили в {org}.',
    },
  },
  tr: {
    topics: {
      military: 'silahlı çatışmalar',
      cyber: 'siber saldırı',
      economic: 'döviz krizi',
      disaster: 'doğal afet',
      political: 'siyasi kriz',
      criminal: 'suç şiddeti',
      health: 'salgın',
      supply_chain: 'tedarik zinciri aksaklıkları',
    },
    titles: {
      crisis: '{place}: {topic}, durum kötüleşiyor',
      update: '{place}: {topic}, son gelişmeler',
      resolution: '{place}: {topic}, sükûnet geri dönüyor',
    },
    contents: {
      crisis:
        'Yerel kaynaklara göre {place} bölgesinde durum ciddi şekilde kötüleşti. {org} itidal çağrısında bulundu.',
      update: '{org} yetkililerine göre {place} bölgesinde gerginlik sürüyor.',
      resolution: '{org}, {place} bölgesinde durumun normale döndüğünü açıkladı.',
    },
  },
  ja: {
    topics: {
      military: '武力衝突',
      cyber: 'サイバー攻撃',
      economic: '通貨危機',
      disaster: '自然災害',
      political: '政治危機',
      criminal: '犯罪による暴力',
      health: '感染症の流行',
      supply_chain: '物流の混乱',
    },
    titles: {
      crisis: '{place}で{topic}、事態が悪化',
      update: '{place}の{topic}、最新情報',
      resolution: '{place}の{topic}、事態は沈静化へ',
    },
    contents: {
      crisis: '現地からの情報によると、{place}の情勢は急速に悪化している。{org}は自制を呼びかけた。',
      update: '{org}によると、{place}では緊張した状況が続いている。',
      resolution: '{org}は、{place}の状況が平常に戻りつつあると発表した。',
    },
  },
};

/** Organisations named in background reports written in another language. */
const GENERIC_NATIVE_ORGS = [
  'Red Cross',
  'United Nations',
  'European Union',
  'African Union',
  'World Bank',
] as const;

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** One signal before its source is chosen and its text is rendered. */
interface Draft {
  publishedMs: number;
  layer: Layer;
  valence: Valence;
  score: number;
  codes: string[];
  place: Place | null;
  story: Storyline | null;
}

const countryName = (code: string): string => COUNTRIES[code]?.name ?? code;
const roundScore = (score: number): number => Math.round(Math.min(10, Math.max(0, score)) * 10) / 10;
const wholeSecond = (ms: number): number => Math.floor(ms / SECOND) * SECOND;

/**
 * Generates `count` demo signals, oldest first. Same (count, now, seed) → same output.
 * Items from the same outlet share one `source` object.
 */
export function generateDemoSignals(opts: DemoOptions): DemoItem[] {
  const count = Math.max(0, Math.floor(opts.count));
  const nowMs = wholeSecond(opts.now.getTime());
  const rng = mulberry32(opts.seed ?? DEFAULT_SEED);
  const windowStart = nowMs - WINDOW_DAYS * DAY;
  const indexSpace = 2 ** Math.ceil(Math.log2(count + 1));
  const order = new Float64Array(count);
  const items: DemoItem[] = new Array<DemoItem>(count);
  for (let i = 0; i < count; i++) {
    const draft = drawSignal(rng, nowMs);
    items[i] = renderItem(rng, draft, i, nowMs);
    // Seconds since the window start, then the index: one sortable number, ties in generation order.
    order[i] = ((draft.publishedMs - windowStart) / SECOND) * indexSpace + i;
  }
  order.sort();
  const sorted = new Array<DemoItem>(count);
  for (let k = 0; k < count; k++) sorted[k] = items[(order[k] as number) % indexSpace] as DemoItem;
  return sorted;
}

function drawSignal(rng: Rng, nowMs: number): Draft {
  const stream = rng();
  if (stream < STORYLINE_SHARE)
    return storylineDraft(rng, pickWeighted(rng, STORYLINES, STORYLINE_WEIGHTS), nowMs);
  if (stream < STORYLINE_SHARE + BURST_SHARE) return burstDraft(rng, pick(rng, BURSTS), nowMs);
  return backgroundDraft(rng, nowMs);
}

function storylineDraft(rng: Rng, story: Storyline, nowMs: number): Draft {
  const startMs = nowMs - story.startDaysAgo * DAY;
  const endMs = nowMs - story.endDaysAgo * DAY;
  const ongoing = endMs > nowMs;
  const publishedMs = wholeSecond(
    ongoing && rng() < RECENT_SHARE
      ? nowMs - rng() * RECENT_WINDOW
      : startMs + rng() * (Math.min(endMs, nowMs) - startMs),
  );
  const valence = lifecycleValence(rng, (publishedMs - startMs) / (endMs - startMs));
  return {
    publishedMs,
    layer: story.layer,
    valence,
    score: storyScore(rng, valence, story.severity),
    codes: storyCodes(rng, story),
    place: rng() < NO_CITY_SHARE ? null : (PLACE_BY_CITY.get(story.city) ?? null),
    story,
  };
}

function burstDraft(rng: Rng, story: Storyline, nowMs: number): Draft {
  // Skewed toward the present, so the last hour is busiest.
  const publishedMs = wholeSecond(nowMs - rng() ** 1.5 * story.startDaysAgo * DAY);
  const valence: Valence = rng() < 0.6 ? 'crisis' : 'update';
  return {
    publishedMs,
    layer: story.layer,
    valence,
    score: storyScore(rng, valence, story.severity),
    codes: storyCodes(rng, story),
    place: rng() < NO_CITY_SHARE ? null : (PLACE_BY_CITY.get(story.city) ?? null),
    story,
  };
}

function backgroundDraft(rng: Rng, nowMs: number): Draft {
  const place = pick(rng, PLACES);
  const window = rng() < RECENT_SHARE ? RECENT_WINDOW : WINDOW_DAYS * DAY;
  const roll = rng();
  const valence: Valence = roll < 0.3 ? 'crisis' : roll < 0.85 ? 'update' : 'resolution';
  // Kept below storyline crises, so compound crises and spikes come from the stories.
  const base = valence === 'crisis' ? 4 : valence === 'update' ? 2 : 1.5;
  return {
    publishedMs: wholeSecond(nowMs - rng() * window),
    layer: pick(rng, LAYERS),
    valence,
    score: roundScore(base + rng() * 2.5),
    codes: [place.code],
    place: rng() < NO_CITY_SHARE ? null : place,
    story: null,
  };
}

/** Early signals are mostly crises, late ones (of stories that end) mostly resolutions. */
function lifecycleValence(rng: Rng, progress: number): Valence {
  const roll = rng();
  if (progress < 0.15) return roll < 0.85 ? 'crisis' : 'update';
  if (progress > 0.85) return roll < 0.7 ? 'resolution' : 'update';
  return roll < 0.2 ? 'crisis' : 'update';
}

function storyScore(rng: Rng, valence: Valence, severity: number): number {
  if (valence === 'crisis') return roundScore(6.2 + rng() * 2.6 + severity * 0.6);
  if (valence === 'update') return roundScore(3.5 + rng() * 3 + severity * 0.5);
  return roundScore(2.5 + rng() * 2.5 + severity * 0.3);
}

function storyCodes(rng: Rng, story: Storyline): string[] {
  return story.codes.length > 1 && rng() < SECOND_COUNTRY_SHARE ? [...story.codes] : story.codes.slice(0, 1);
}

function renderItem(rng: Rng, draft: Draft, index: number, nowMs: number): DemoItem {
  const primary = draft.codes[0] as string;
  const source = pick(rng, sourcesCovering(COUNTRIES[primary]?.region ?? null, draft.layer));
  const native =
    source.language !== 'en' && rng() < NATIVE_LANGUAGE_SHARE ? NATIVE[source.language] : undefined;
  const text = native ? nativeText(rng, draft, native) : englishText(rng, draft);
  const collectedMs = Math.min(nowMs, wholeSecond(draft.publishedMs + 3 * MINUTE + rng() ** 2 * 6 * HOUR));
  const slug = slugify(text.title) || slugify(`${draft.layer} ${draft.place?.city ?? countryName(primary)}`);
  const publishedAt = isoSeconds(draft.publishedMs);
  return {
    threat_layer: draft.layer,
    significance_score: draft.score,
    signal_valence: draft.valence,
    title: text.title,
    content_display: text.content,
    country_codes: draft.codes,
    city: draft.place?.city ?? null,
    lat: draft.place?.lat ?? null,
    lng: draft.place?.lng ?? null,
    language: native ? source.language : 'en',
    published_at: publishedAt,
    collected_at: isoSeconds(collectedMs),
    source_url: `https://${source.domain}/${publishedAt.slice(0, 4)}/${slug}-${index + 1}`,
    source: SOURCE_PAYLOADS.get(source) as ItemSource,
  };
}

interface Text {
  title: string;
  content: string;
}

const MAX_TITLE_WORDS = 12;
const TITLE_ATTEMPTS = 4;

function englishText(rng: Rng, draft: Draft): Text {
  const story = draft.story;
  const values = placeholderValues(rng, draft);
  if (!story) {
    const template = pick(rng, BACKGROUND[draft.layer]);
    return { title: fill(template.title, values), content: fill(template.content, values) };
  }
  const templates = story.templates ?? TEMPLATES[draft.layer];
  const sentences = [pick(rng, templates.leads[draft.valence])];
  if (rng() < 0.55) sentences.push(pick(rng, templates.details));
  if (rng() < 0.25) sentences.push(pick(rng, GENERIC_DETAILS));
  return {
    title: headline(rng, templates.titles[draft.valence], { ...values, ...headlineNames(story) }),
    content: storyContent(sentences, values, story),
  };
}

/** Full title and name at a person's first mention, surname after that, as reporters write. */
function storyContent(
  sentences: readonly string[],
  values: Readonly<Record<string, string>>,
  story: Storyline,
): string {
  const current = { ...values };
  return sentences
    .map((template) => {
      const text = fill(template, current);
      story.people.forEach((person, i) => {
        const key = i === 0 ? 'P' : 'Q';
        if (template.includes(`{${key}}`)) current[key] = person.short ?? lastWord(person.name);
      });
      return text;
    })
    .join(' ');
}

/** A headline of at most twelve words when the templates allow it: long names make some too wordy. */
function headline(rng: Rng, templates: readonly string[], values: Readonly<Record<string, string>>): string {
  let title = fill(pick(rng, templates), values);
  for (let attempt = 1; attempt < TITLE_ATTEMPTS && title.split(' ').length > MAX_TITLE_WORDS; attempt++) {
    title = fill(pick(rng, templates), values);
  }
  return title;
}

/** Headlines name people by surname and organisations by their short form, without articles. */
function headlineNames(story: Storyline): Record<string, string> {
  const [orgA, orgB] = story.orgs;
  const [first, second] = story.people;
  return {
    A: orgA.short ?? withoutArticle(orgA.name),
    B: orgB.short ?? withoutArticle(orgB.name),
    P: first.short ?? lastWord(first.name),
    Q: second.short ?? lastWord(second.name),
  };
}

function nativeText(rng: Rng, draft: Draft, native: NativeTemplates): Text {
  const values: Record<string, string> = {
    place: draft.place?.city ?? countryName(draft.codes[0] as string),
    topic: native.topics[draft.layer],
    org: draft.story ? withoutArticle(pick(rng, draft.story.orgs).name) : pick(rng, GENERIC_NATIVE_ORGS),
  };
  return {
    title: fill(native.titles[draft.valence], values),
    content: fill(native.contents[draft.valence], values),
  };
}

function placeholderValues(rng: Rng, draft: Draft): Record<string, string> {
  const story = draft.story;
  const country = proseCountryName(draft.codes[0] as string);
  return {
    A: story?.orgs[0].name ?? '',
    B: story?.orgs[1].name ?? '',
    a: withoutArticle(story?.orgs[0].name ?? ''),
    b: withoutArticle(story?.orgs[1].name ?? ''),
    P: story ? `${story.people[0].title} ${story.people[0].name}` : '',
    Q: story ? `${story.people[1].title} ${story.people[1].name}` : '',
    city: draft.place?.city ?? country,
    country,
    subject: story?.subject ?? '',
    term: story ? pick(rng, story.terms) : '',
    weekday: WEEKDAYS[new Date(draft.publishedMs).getUTCDay()] as string,
    n: String(intBetween(rng, 3, 40)),
    N: thousands(intBetween(rng, 5, 95) * 100),
    pct: String(intBetween(rng, 3, 30)),
    bps: String(intBetween(rng, 1, 6) * 100),
    dec: between(rng, 1, 4.5).toFixed(1),
    mag: between(rng, 4, 5.6).toFixed(1),
  };
}

const PROSE_COUNTRY_NAMES: Readonly<Record<string, string>> = { CD: 'DR Congo', CG: 'Congo-Brazzaville' };
const NEEDS_ARTICLE =
  /^(?:United |Democratic |Republic |Central African|Dominican|Netherlands$|Philippines$|Gambia$|Bahamas$|Maldives$|Comoros$|Seychelles$)|Islands$/;

/** "the Philippines", "DR Congo": country names as a reporter writes them mid-sentence. */
function proseCountryName(code: string): string {
  const name = PROSE_COUNTRY_NAMES[code] ?? countryName(code);
  return NEEDS_ARTICLE.test(name) ? `the ${name}` : name;
}

const lastWord = (name: string): string => name.slice(name.lastIndexOf(' ') + 1);

const compiledTemplates = new Map<string, readonly string[]>();

/** "a {B} c" → ['a ', 'B', ' c']: odd positions name placeholders. Parsed once per template. */
function compile(template: string): readonly string[] {
  let parts = compiledTemplates.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/);
    compiledTemplates.set(template, parts);
  }
  return parts;
}

/** Fills {placeholders}; capitalises the first letter, since a template may open with "the ..." or a role. */
function fill(template: string, values: Readonly<Record<string, string>>): string {
  const parts = compile(template);
  let text = '';
  for (let i = 0; i < parts.length; i++) text += i % 2 === 1 ? (values[parts[i] as string] ?? '') : parts[i];
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const withoutArticle = (name: string): string => name.replace(/^the /, '');

const thousands = (value: number): string => String(value).replace(/\B(?=(\d{3})+$)/g, ',');

/** ISO 8601 without milliseconds; every timestamp here is a whole second. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const NON_ASCII = /[^\x00-\x7f]/;
const SLUG_WORDS = 8;

/** URL slug of at most eight words; empty for scripts without Latin letters. */
function slugify(text: string): string {
  const latin = NON_ASCII.test(text) ? text.normalize('NFD').replace(/\p{M}/gu, '') : text;
  let slug = '';
  let words = 0;
  for (const word of latin.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    slug += words === 0 ? word : `-${word}`;
    if (++words === SLUG_WORDS) break;
  }
  return slug;
}
