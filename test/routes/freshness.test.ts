import { describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { withTestApp } from '../support/harness';

type Freshness = {
  latest_ingested_at: string | null;
  ingest_lag_seconds: number | null;
  signals_last_hour: number;
};

/** The freshness lag on a clock the test sets: how long since the newest ingest. */
describe('freshness lag', () => {
  let clock = Date.now();
  const app = withTestApp({ deps: { now: () => new Date(clock) } });

  const read = async () => await (await app.fetch('/api/v1/freshness')).json<Freshness>();

  it('has no lag before anything is ingested', async () => {
    expect(await read()).toMatchObject({
      latest_ingested_at: null,
      ingest_lag_seconds: null,
      signals_last_hour: 0,
    });
  });

  it('counts the seconds since the newest ingest, rounded, never negative', async () => {
    await ingestSignals(app.db, [{ ...FIXTURE.ottawaVote, source_url: 'https://wire.example.com/fresh' }]);
    clock = Date.now();
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
});
