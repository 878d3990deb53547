import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sources } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { withTestDatabase } from '../support/harness';

/** Issue 13, item 11: a source named by several items of one batch. */
describe('a source named by several items of one batch', () => {
  const database = withTestDatabase();

  const item = (name: string, n: number, source: Record<string, string>) => ({
    ...FIXTURE.kyivStrike,
    source_url: `https://wire.example.com/${encodeURIComponent(name)}/${n}`,
    source: { name, ...source },
  });
  const full = { url: 'https://full.example/', tier: 'core', language: 'fr' };
  const sourceRow = async (name: string) =>
    (await database.db.select().from(sources).where(eq(sources.name, name)))[0]!;

  it.each([
    [
      'given first, omitted after',
      (name: string) => [item(name, 1, full), item(name, 2, {}), item(name, 3, {})],
    ],
    [
      'omitted first, given after',
      (name: string) => [item(name, 1, {}), item(name, 2, full), item(name, 3, {})],
    ],
    [
      'given piecemeal',
      (name: string) => [
        item(name, 1, { tier: 'core' }),
        item(name, 2, { language: 'fr' }),
        item(name, 3, { url: 'https://full.example/' }),
        item(name, 4, {}),
      ],
    ],
  ])('keeps the tier, language and URL it was given (%s)', async (label, batch) => {
    const name = `Batch Source ${label}`;
    const result = await ingestSignals(database.db, batch(name));
    expect(result.rejected).toBe(0);
    expect(await sourceRow(name)).toMatchObject({ url: full.url, tier: 'core', language: 'fr' });
  });

  it('a later batch that omits them does not erase them', async () => {
    const name = 'Batch Source later';
    await ingestSignals(database.db, [item(name, 1, full)]);
    await ingestSignals(database.db, [item(name, 2, {})]);
    expect(await sourceRow(name)).toMatchObject({ url: full.url, tier: 'core', language: 'fr' });
  });
});
