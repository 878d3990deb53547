import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import { extractEntities, extractionWork } from '../../src/reading/entities';
import { MAX_INGEST_ITEMS } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { admin, withTestApp } from '../support/harness';

/** A distinct capitalised pseudo-word per index (letters only, so it is one token). */
const word = (i: number) =>
  'Q' + ((i * 7919) % 100000).toString(36).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]!);

/**
 * Texts a live feed could send that once made extraction quadratic: one sentence (lower-case
 * content, so not a headline) holding an endless run of capitalised words, plain or joined.
 */
const HOSTILE: Record<string, (n: number) => string> = {
  'capitalised run': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' '),
  'ampersand chain': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' & '),
  'of chain': (n) => 'officials said the Bank ' + Array.from({ length: n }, (_, i) => word(i)).join(' of '),
};

const ofLength = (make: (n: number) => string, chars: number): string => {
  let n = 16;
  while (make(n).length < chars) n *= 2;
  return make(n).slice(0, chars);
};

describe('entity extraction on hostile text', () => {
  it.each(Object.keys(HOSTILE))('is linear in the length of a %s (50,000 characters)', (name) => {
    const make = HOSTILE[name]!;
    extractEntities(ofLength(make, 10_000));
    const small = extractionWork();
    const entities = extractEntities(ofLength(make, 50_000));
    const large = extractionWork();
    expect(entities.length).toBeLessThanOrEqual(20);
    // Five times the text, about five times the work (quadratic would be 25 times).
    expect(large).toBeLessThan(small * 6);
    expect(large).toBeLessThan(50_000 * 40);
  });

  it('still finds the entities of ordinary prose', () => {
    const prose = 'Officials in Kyiv said President Volodymyr Zelensky met NATO leaders. '.repeat(700);
    const names = extractEntities(prose).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['Kyiv', 'Volodymyr Zelensky', 'NATO']));
    expect(extractionWork()).toBeLessThan(prose.length * 5);
  });
});

describe('ingest request size', () => {
  const app = withTestApp();

  const signalCount = async () =>
    (await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`))[0]!.n;

  it(`answers 413 past ${MAX_INGEST_ITEMS} items in one request, and writes none of them`, async () => {
    const base = FIXTURE.kyivStrike;
    const items = Array.from({ length: MAX_INGEST_ITEMS + 1 }, (_, i) => ({
      ...base,
      source_url: `https://wire.example.com/bulk/${i}`,
    }));
    for (const [type, body] of [
      ['application/json', JSON.stringify(items)],
      ['application/x-ndjson', items.map((item) => JSON.stringify(item)).join('\n')],
    ] as const) {
      const res = await app.fetch(
        '/api/v1/admin/signals',
        admin({ method: 'POST', headers: { 'Content-Type': type }, body }),
      );
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = await res.json<{ code: string; detail: string }>();
      expect(problem.code).toBe('payload_too_large');
      expect(problem.detail).toMatch(/5000 items/);
    }
    expect(await signalCount()).toBe(0);

    const res = await app.fetch(
      '/api/v1/admin/signals',
      admin({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(items.slice(0, 3)),
      }),
    );
    expect(await res.json()).toMatchObject({ accepted: 3 });
  });
});
