import { describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { memoryStore } from '../../src/store/memory';
import { FIXTURE } from '../support/fixture';
import { withTestApp } from '../support/harness';

type Freshness = {
  latest_ingested_at: string | null;
  ingest_lag_seconds: number | null;
  signals_last_hour: number;
  checked_at: string;
};

const TTL_MS = 30_000;

/**
 * The freshness lag on a clock the test sets: how long since the newest ingest. The store's
 * clock is the test's too, so the cached counts expire when the test moves it past their life.
 */
describe('freshness lag', () => {
  let clock = Date.now();
  const app = withTestApp({ deps: { now: () => new Date(clock) }, store: memoryStore(() => clock) });

  const answer = (headers: Record<string, string> = {}) => app.fetch('/api/v1/freshness', { headers });
  const read = async () => await (await answer()).json<Freshness>();

  it('has no lag before anything is ingested', async () => {
    expect(await read()).toMatchObject({
      latest_ingested_at: null,
      ingest_lag_seconds: null,
      signals_last_hour: 0,
    });
  });

  it('serves its counts from the cache for 30 seconds, the lag always to the answer time', async () => {
    await ingestSignals(app.db, [{ ...FIXTURE.ottawaVote, source_url: 'https://wire.example.com/fresh' }]);
    clock = Date.now() + TTL_MS; // past the life of the counts cached before the ingest
    const first = await answer();
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.headers.get('cache-control')).toBe('public, max-age=30');
    const before = await first.json<Freshness>();
    expect(before.signals_last_hour).toBe(1);

    // A new ingest within the counts' life is not seen yet; the lag still moves with the clock.
    await ingestSignals(app.db, [
      { ...FIXTURE.tokyoMarkets, source_url: 'https://wire.example.com/fresh-2' },
    ]);
    clock += 10_000;
    const hit = await answer();
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('cache-control')).toBe('public, max-age=20');
    const cachedBody = await hit.json<Freshness>();
    expect(cachedBody).toMatchObject({ signals_last_hour: 1, latest_ingested_at: before.latest_ingested_at });
    expect(cachedBody.ingest_lag_seconds).toBe(before.ingest_lag_seconds! + 10);
    expect(cachedBody.checked_at).toBe(new Date(clock).toISOString());

    clock += TTL_MS;
    const fresh = await answer();
    expect(fresh.headers.get('x-cache')).toBe('MISS');
    expect((await fresh.json<Freshness>()).signals_last_hour).toBe(2);
  });

  it('counts the seconds since the newest ingest, rounded, never negative', async () => {
    clock = Date.now() + 5 * TTL_MS; // past the life of every count cached so far
    const latest = Date.parse((await read()).latest_ingested_at!);
    clock = latest + 90_000;
    expect((await read()).ingest_lag_seconds).toBe(90);
    clock = latest + 3 * 3_600_000 + 400;
    expect((await read()).ingest_lag_seconds).toBe(10_800);
    clock = latest + 1_600;
    expect((await read()).ingest_lag_seconds).toBe(2);
    clock = latest - 5_000; // a clock behind the database's
    expect((await read()).ingest_lag_seconds).toBe(0);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await answer();
    const tag = first.headers.get('etag');
    expect(tag).toBeTruthy();
    const again = await answer({ 'If-None-Match': tag! });
    expect(again.status).toBe(304);
  });
});
