/**
 * The cost side of the bounds, shown as behaviour rather than time: a large document's ingest
 * lets the event loop turn while it parses and validates (an unyielding one gives no turn
 * between its start and its first write), and language detection reads a bounded prefix of the
 * text (an unbounded one is swayed by megabytes behind the part that is stored and shown).
 * Only functions that predate the bounds are used, so the file runs unchanged on the old code.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sources } from '../../src/db/schema';
import { ingestDocument } from '../../src/ingest/upstream';
import { detectLanguage } from '../../src/reading/language';
import { connectorFor } from '../../src/sources/registry';
import { seedCatalogue } from '../../src/sources/rows';
import { context, parse } from './support';
import { withTestDatabase } from '../support/harness';

const MiB = 1024 * 1024;
/** A USGS GeoJSON FeatureCollection of `n` quakes, in the feed's shape, with text of our own. */
function usgsDocument(n: number): string {
  return JSON.stringify({
    type: 'FeatureCollection',
    metadata: { generated: 1763600000000, title: 'Test quakes', status: 200, count: n },
    features: Array.from({ length: n }, (_, i) => ({
      type: 'Feature',
      id: `tt${String(i).padStart(8, '0')}`,
      properties: {
        mag: 4.5 + (i % 30) / 10,
        place: `${10 + (i % 90)} km N of Testville ${i}, Peru`,
        time: 1763600000000 + i * 60_000,
        updated: 1763600000000 + i * 60_000,
        url: `https://earthquake.usgs.gov/earthquakes/eventpage/tt${String(i).padStart(8, '0')}`,
        status: 'reviewed',
        tsunami: 0,
        sig: 400,
        magType: 'mb',
        ids: `,tt${String(i).padStart(8, '0')},`,
        title: `M ${(4.5 + (i % 30) / 10).toFixed(1)} - ${10 + (i % 90)} km N of Testville ${i}, Peru`,
      },
      geometry: { type: 'Point', coordinates: [-75 + (i % 50) / 10, -10 + (i % 40) / 10, 30] },
    })),
  });
}

/** Counts turns of the event loop (a chain of `setImmediate`, one link per turn) until stopped. */
function loopTurns() {
  let count = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    count += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop() {
      running = false;
    },
  };
}

describe('a large ingest lets the event loop turn', () => {
  const database = withTestDatabase({ seed: seedCatalogue, timeout: 180_000 });

  it('turns the loop at least once per 500 items while parsing and validating, and again while writing', async () => {
    const [source] = await database.db.select().from(sources).where(eq(sources.connector, 'usgs')).limit(1);
    expect(source).toBeDefined();
    const items = 1000;
    const document = usgsDocument(items);

    // The database notes how far the loop had turned when the ingest first opened its write
    // transaction: everything before it is parse and validation of the document.
    const turns = loopTurns();
    let turnsBeforeWrite: number | null = null;
    const watched = new Proxy(database.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'transaction' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          turnsBeforeWrite ??= turns.count;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    try {
      const result = await ingestDocument(watched, connectorFor('usgs')!, source!, document);
      expect(result.accepted).toBe(items);
    } finally {
      turns.stop();
    }
    // An ingest that parses and validates the whole document in one go gives no turn at all
    // before it writes, so a health check or a read arriving meanwhile waits for all of it;
    // one that then writes every item in one go gives none while it writes either.
    expect(turnsBeforeWrite).not.toBeNull();
    expect.soft(turnsBeforeWrite!, 'turns while parsing and validating').toBeGreaterThanOrEqual(items / 500);
    expect.soft(turns.count - turnsBeforeWrite!, 'turns while writing').toBeGreaterThanOrEqual(items / 500);
  }, 300_000);
});

describe('language detection reads a bounded prefix', () => {
  // Text of our own: about 2,000 letters of English, then a megabyte of French. Read whole, the
  // detector answers French (accented French outvotes English in `tinyld`); read as a bounded
  // sample of the start, English.
  const english =
    'The government said on Tuesday that flooding forced the evacuation of the valley and emergency services would work through the night. '.repeat(
      15,
    );
  const french =
    "Les habitants du village ont été évacués pendant la nuit après la crue de la rivière, et les écoles resteront fermées jusqu'à la fin de la semaine. ".repeat(
      MiB / 150,
    );

  it('names the language of the first letters, not of the megabyte behind them', () => {
    expect(detectLanguage(french)).toBe('fr');
    expect(detectLanguage(english)).toBe('en');
    expect(detectLanguage(english + french)).toBe('en');
  });

  it('reads an RSS item without <language> by the start of its text, however long its description', () => {
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>Test wire</title>
<item><title>Flooding forces evacuation of Testville valley</title><link>https://news.example/flood</link>
<pubDate>Sun, 22 Nov 2026 10:00:00 GMT</pubDate>
<description>${english}${french}</description></item></channel></rss>`;
    const [item] = parse('rss', rss, context('community'));
    expect(item).toBeDefined();
    expect(item!.language).toBe('en');
  });
});
