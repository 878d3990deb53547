/**
 * `sources poll` as the CLI runs it: on the server's own embedded database (the live one with
 * LIVE_SOURCES), one source forced, or the due ones.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { pgliteDatabase } from '../../src/db/node';
import { sources } from '../../src/db/schema';
import { UnknownSourceError } from '../../src/sources/cycle';
import { liveAwareConfig } from '../../src/node-runtime';
import { pollNow } from '../../src/sources/poll-command';
import type { DatabaseHandle } from '../../src/db/client';
import { liveQuakes, startFeedServer, type FeedServer } from './feed-server';

const run = promisify(execFile);

describe('sources poll (CLI)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poll-cli-'));
  const config = liveAwareConfig(
    loadConfig({
      DATA_DIR: dataDir,
      LIVE_SOURCES: 'true',
      WEBHOOK_ALLOW_INSECURE: 'true',
      LOG_LEVEL: 'silent',
    }),
  );
  let feeds: FeedServer;
  let live: DatabaseHandle;

  beforeAll(async () => {
    feeds = await startFeedServer({
      '/quakes': liveQuakes('"q1"'),
    });
    // The live database is DATA_DIR-live; the demo one under DATA_DIR is never touched.
    expect(config.DATA_DIR).toBe(`${dataDir}-live`);
    live = await pgliteDatabase(join(config.DATA_DIR, 'pglite'));
    await live.db
      .insert(sources)
      .values({ name: 'loop quakes', connector: 'usgs', url: `${feeds.url}/quakes`, tier: 'core' });
  }, 60_000);
  afterAll(async () => {
    await live?.close();
    await feeds?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}-live`, { recursive: true, force: true });
  });

  it('polls the due sources, then a named one on demand, on the live database', async () => {
    const first = await pollNow(config, live.db);
    expect(first.polls).toEqual([
      expect.objectContaining({ source: 'loop quakes', status: 'ok', items: 6, accepted: 3 }),
    ]);
    // Not due again for its interval (the connector's 5 minutes): nothing to poll.
    expect((await pollNow(config, live.db)).polls).toEqual([]);
    // Named, it is polled now: the feed answers 304 to the stored ETag.
    expect((await pollNow(config, live.db, { source: 'loop quakes' })).polls).toEqual([
      { source: 'loop quakes', connector: 'usgs', status: 'not_modified' },
    ]);
    await expect(pollNow(config, live.db, { source: 'nope' })).rejects.toBeInstanceOf(UnknownSourceError);
    expect(feeds.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"q1"']);

    const [row] = await live.db.select().from(sources).where(eq(sources.name, 'loop quakes'));
    expect(row).toMatchObject({ etag: '"q1"', lastPollItems: 0, consecutiveFailures: 0 });
  }, 120_000);

  it('is `npm run cli -- sources poll`, on the live database with LIVE_SOURCES', async () => {
    await live.close();
    const cli = (...args: string[]) =>
      run('npx', ['tsx', 'src/cli.ts', 'sources', 'poll', ...args], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          LIVE_SOURCES: 'true',
          WEBHOOK_ALLOW_INSECURE: 'true',
          LOG_LEVEL: 'silent',
        },
      });
    const { stdout } = await cli('--source', 'loop quakes');
    expect(JSON.parse(stdout)).toMatchObject({
      polls: [{ source: 'loop quakes', connector: 'usgs', status: 'not_modified' }],
      webhooks: { deliveries: 0 },
    });
    await expect(cli('--source', 'nope')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no source named "nope"'),
    });
    live = await pgliteDatabase(join(config.DATA_DIR, 'pglite'));
  }, 120_000);
});
