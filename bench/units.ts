/**
 * `npm run bench` (first part): how fast the units whose speed matters are, printed as figures.
 * Tests assert only behaviour; the timings they used to assert live here, with no pass/fail:
 * entity extraction on long texts (linear, so 10k and 50k characters should scale ~5×), the
 * place reader and the whole news reading over 1,000 news-length items in four languages (items
 * per second), demo
 * data generation, the world map (render time and gzipped size for 1,000 and 10,000 events), a webhook delivery to a receiver that never answers (given up at its
 * timeout), and a store call that hangs (given up at its deadline).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pgliteDatabase } from '../src/db/node';
import { gzipSync } from 'node:zlib';
import { renderMap, type MapEvent } from '../src/embed/map';
import { generateDemoSignals } from '../src/ingest/demo';
import { extractEntities } from '../src/reading/entities';
import { readNewsItem } from '../src/reading/news';
import { readPlaces } from '../src/reading/places';
import { withDeadline } from '../src/store/deadline';
import { sendDelivery } from '../src/webhooks/deliver';
import { linkThroughput, seedCandidateEvents } from './events-linking';

const NOW = new Date('2026-11-22T06:00:00Z');

/** Median of `runs` timings of `work`, in milliseconds. */
async function median(runs: number, work: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const figures: [string, number][] = [];
const record = (name: string, ms: number) => {
  figures.push([name, ms]);
  console.log(`${name.padEnd(58)} ${ms.toFixed(1).padStart(9)} ms`);
};

const sentence =
  'Gen. Tarek Osman said the Rapid Support Forces shelled El Fasher overnight, while the World Health Organization warned of cholera in Port Sudan. ';
const word = (i: number) =>
  'Q' + ((i * 7919) % 100000).toString(36).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]!);
// Ordinary prose, and the hostile shapes that were quadratic before the look-ahead bound.
const TEXTS: Record<string, (n: number) => string> = {
  prose: (n) => sentence.repeat(n),
  'capitalised run': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' '),
  'ampersand chain': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' & '),
};
for (const [name, make] of Object.entries(TEXTS)) {
  for (const chars of [10_000, 50_000]) {
    let n = 16;
    while (make(n).length < chars) n *= 2;
    const text = make(n).slice(0, chars);
    record(
      `extractEntities, ${name}, ${chars.toLocaleString('en')} characters`,
      await median(5, () => extractEntities(text)),
    );
  }
}
// News-length items (a title and a ~300-character summary), written here, in four languages.
const NEWS: [string, string, string][] = [
  [
    'en',
    'Drone strike on {0} kills 12 as {1} denies involvement',
    'Officials in {0} said the attack hit a market near the port. {1} and its allies called for calm while talks continue in {2}; aid groups warned that hospitals are running out of fuel and that more families are leaving the city.',
  ],
  [
    'fr',
    'Manifestations à {0} : la police disperse la foule',
    "Des milliers de personnes ont défilé dans le centre de {0}. Le gouvernement accuse {1} d'ingérence, tandis que l'opposition réclame des élections anticipées et la libération des militants arrêtés la semaine dernière.",
  ],
  [
    'ru',
    'Удар по {0}: погибли пять человек',
    'Власти сообщили, что ракеты попали в жилой дом. В {1} заявили, что переговоры в {2} продолжатся; спасатели работают на месте, эвакуированы десятки жителей соседних домов.',
  ],
  [
    'ar',
    'قصف على {0} يقتل عشرات المدنيين',
    'قالت مصادر محلية إن الغارات استهدفت حيا سكنيا في {0}، فيما دعت {1} إلى وقف فوري لإطلاق النار واستئناف المفاوضات في {2}.',
  ],
];
const PLACES: Record<string, string[]> = {
  en: ['Kharkiv', 'Sudan', 'Gaza', 'Yemen', 'Haiti', 'Kabul', 'Myanmar', 'Goma'],
  fr: ['Dakar', 'Bamako', 'Niamey', 'la France', 'Kinshasa', 'Port-au-Prince'],
  ru: ['Харькову', 'Москве', 'Киеве', 'Сирии', 'Донецку', 'Одессе'],
  ar: ['غزة', 'الخرطوم', 'بغداد', 'دمشق', 'صنعاء', 'بيروت'],
};
const items = Array.from({ length: 1_000 }, (_, i) => {
  const [lang, title, summary] = NEWS[i % NEWS.length]!;
  const places = PLACES[lang]!;
  const fill = (text: string) =>
    text.replace(/\{(\d)\}/g, (_m, k: string) => places[(i + Number(k) * 3) % places.length]!);
  return { lang, title: fill(title), summary: fill(summary) };
});
for (const item of items) readPlaces(item.title, item.summary, item.lang);
const placesMs = await median(5, () => {
  for (const item of items) readPlaces(item.title, item.summary, item.lang);
});
record('readPlaces, 1,000 news-length items', placesMs);
console.log(
  `${'readPlaces, items per second'.padEnd(58)} ${Math.round(1_000 / (placesMs / 1_000))
    .toLocaleString('en')
    .padStart(9)}`,
);

// The whole news reading (places, fact rules, features, the model, the score) of the same items.
const readItem = (item: (typeof items)[number]) =>
  readNewsItem({ title: item.title, summary: item.summary, link: null, language: item.lang, tier: 'core' });
for (const item of items) readItem(item);
const newsMs = await median(5, () => {
  for (const item of items) readItem(item);
});
record('readNewsItem (classify), 1,000 news-length items', newsMs);
console.log(
  `${'readNewsItem (classify), items per second'.padEnd(58)} ${Math.round(1_000 / (newsMs / 1_000))
    .toLocaleString('en')
    .padStart(9)}`,
);

for (const count of [6_000, 100_000]) {
  record(
    `generateDemoSignals, ${count.toLocaleString('en')} items`,
    await median(3, () => generateDemoSignals({ count, now: NOW, seed: 2 })),
  );
}

// The world map of a window's events (issue 30 asks ≤ 50 ms and ≤ 60 KB gzipped at 10,000).
const demo = generateDemoSignals({ count: 10_000, now: NOW, seed: 3 });
const mapEvents: MapEvent[] = demo.map((item, i) => ({
  id: `s${i}`,
  eventId: `e${i}`,
  layer: item.threat_layer,
  score: item.significance_score,
  title: item.title ?? item.content_display.slice(0, 80),
  lat: item.lat ?? null,
  lng: item.lng ?? null,
  countries: item.country_codes ?? [],
  corroboration: 1 + (i % 3),
  publishedAt: new Date(item.published_at),
  url: item.source_url,
}));
mapEvents.sort((a, b) => b.score - a.score);
for (const count of [1_000, 10_000]) {
  const events = mapEvents.slice(0, count);
  const options = { theme: 'light' as const, width: 960, scope: 'Events of the last 7 days' };
  const svg = renderMap(events, options); // warms the JIT, as a running server is
  record(
    `renderMap (SVG), ${count.toLocaleString('en')} events`,
    await median(7, () => renderMap(events, options)),
  );
  console.log(
    `${`renderMap size, ${count.toLocaleString('en')} events (KB raw / gzipped)`.padEnd(58)} ${(svg.length / 1000).toFixed(1).padStart(9)} / ${(gzipSync(svg).length / 1000).toFixed(1)} KB`,
  );
  figures.push([`renderMap gzipped KB, ${count} events`, gzipSync(svg).length / 1000]);
}

// A receiver that accepts the connection and never answers.
const hanging = createServer(() => {});
await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`;
for (const timeoutMs of [1_000]) {
  const result = await sendDelivery(
    { url, body: '{}', deliveryId: '00000000-0000-4000-8000-000000000000', secret: null },
    {
      fetch: globalThis.fetch.bind(globalThis),
      allowInsecure: true,
      timeoutMs,
      timestamp: Math.floor(NOW.getTime() / 1000),
    },
  );
  record(
    `webhook delivery to a silent receiver, ${timeoutMs} ms timeout (${result.error})`,
    result.durationMs,
  );
}
hanging.closeAllConnections();
hanging.close();

// Event linking: 1,000 news items against stored candidate events sharing their words and days.
{
  const handle = await pgliteDatabase();
  let stored = 0;
  for (const events of [2_000, 20_000]) {
    await seedCandidateEvents(handle.db, events - stored, NOW);
    stored = events;
    const perSecond = await linkThroughput(handle.db, 1_000, NOW);
    console.log(
      `${`event linking, 1,000 news items, ${events.toLocaleString('en')} stored events`.padEnd(58)} ${perSecond.toFixed(0).padStart(9)} items/s`,
    );
    figures.push([`event linking items/s, ${events} stored events`, perSecond]);
  }
  await handle.close();
}

const started = performance.now();
await withDeadline(new Promise(() => {}), 1_000).catch(() => {});
record('store call that never answers, 1,000 ms deadline', performance.now() - started);

console.log(JSON.stringify({ units: Object.fromEntries(figures) }));
