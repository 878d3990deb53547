/**
 * LIVE_SOURCES on the Node server: the timer polls at once (no waiting for the first minute)
 * and prints one line per source polled.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { sources } from '../../src/db/schema';
import { nodeDeps, startLiveSources } from '../../src/node-runtime';
import { memoryStore } from '../../src/store/memory';
import { memoryLogger, withTestDatabase, closeAfterAll } from '../support/harness';
import { startFeedServer, usgsAsOf, type FeedServer } from './feed-server';
import { fixture } from './support';

describe('the live-sources timer', () => {
  const database = withTestDatabase();
  const closing = closeAfterAll();
  let feeds: FeedServer;

  beforeAll(async () => {
    feeds = closing(
      await startFeedServer({
        '/quakes': {
          document: usgsAsOf(fixture('usgs.geojson'), new Date()),
          type: 'application/geo+json',
        },
        '/gone': { status: 410 },
      }),
    );
    await database.db.insert(sources).values([
      { name: 'loop quakes', connector: 'usgs', url: `${feeds.url}/quakes`, tier: 'core' },
      { name: 'loop gone', connector: 'usgs', url: `${feeds.url}/gone`, tier: 'core' },
    ]);
  });

  it('polls at once and prints what each poll brought', async () => {
    const config = loadConfig({ WEBHOOK_ALLOW_INSECURE: 'true', LOG_LEVEL: 'silent' });
    const deps = nodeDeps(config, database.db, memoryStore(), { log: memoryLogger() });
    const lines: string[] = [];
    let polled: () => void;
    const done = new Promise<void>((resolve) => (polled = resolve));
    const timer = await startLiveSources(deps, (line) => {
      lines.push(line);
      if (lines.filter((l) => l.includes('loop ')).length === 2) polled();
    });
    await done;
    await timer.stop();

    // Sources already there: the catalogue is not added.
    expect(lines[0]).toBe('Live sources on: polling the due ones now and every minute.');
    expect(lines.slice(1).map((l) => l.replace(/^\[[^\]]+\] /, ''))).toEqual([
      expect.stringMatching(/^loop gone: failed \(http_410\), failure 1, next poll \d{4}-/),
      'loop quakes: 6 items, 3 new, 0 updated, 0 known, 3 older than the poll window',
    ]);
  });
});
