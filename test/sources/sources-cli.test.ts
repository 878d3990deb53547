import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from './support';

const exec = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'sources-cli-'));

/** `npm run cli -- sources …` as an operator runs it, on an embedded database in `dataDir`. */
async function cli(...args: string[]) {
  const { stdout } = await exec('npx', ['tsx', 'src/cli.ts', 'sources', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOK_ALLOW_INSECURE: 'false' },
  });
  return JSON.parse(stdout) as unknown;
}

// Each run starts tsx and opens the embedded database: slow on a loaded machine.
const SLOW = 300_000;

describe('sources CLI', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'ingests a saved feed document, then finds nothing new in it',
    async () => {
      const file = join(dataDir, 'quakes.geojson');
      writeFileSync(file, fixture('usgs.geojson'));
      expect(await cli('ingest', 'usgs', file)).toMatchObject({ accepted: 6, updated: 0, duplicates: 0 });
      expect(await cli('ingest', 'usgs', file)).toMatchObject({ accepted: 0, duplicates: 6, ids: [] });
      const bad = join(dataDir, 'bad.geojson');
      writeFileSync(bad, '{"type":');
      await expect(cli('ingest', 'usgs', bad)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('not a usgs feed'),
      });
    },
    SLOW,
  );

  it(
    'adds, lists, disables and enables a source',
    async () => {
      const added = await cli(
        'add',
        'rss',
        'Example wire',
        'https://wire.example.org/rss',
        '--interval',
        '20',
      );
      expect(added).toMatchObject({
        name: 'Example wire',
        connector: 'rss',
        tier: 'community',
        interval_minutes: 20,
      });
      expect(await cli('disable', 'Example wire')).toMatchObject({ enabled: false });
      const rss = (await cli('list', '--connector', 'rss')) as { name: string; enabled: boolean }[];
      expect(rss).toEqual([expect.objectContaining({ name: 'Example wire', enabled: false })]);
    },
    SLOW,
  );

  it(
    'explains its usage on bad arguments',
    async () => {
      await expect(
        cli('add', 'gdelt', 'No query', 'https://api.gdeltproject.org/api/v2/doc/doc'),
      ).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('options:'),
      });
      // The URL rule of POST /api/v1/admin/sources: no poll of a loopback or private address.
      const inner = [
        'http://127.0.0.1:8080/rss',
        'http://169.254.169.254/latest',
        'https://u:p@wire.example.org/rss',
      ];
      for (const url of inner) {
        await expect(cli('add', 'rss', 'Inner wire', url)).rejects.toMatchObject({
          code: 2,
          stderr: expect.stringContaining('url: must'),
        });
      }
      expect(await cli('list', '--connector', 'rss')).not.toContainEqual(
        expect.objectContaining({ name: 'Inner wire' }),
      );
      await expect(cli('launch')).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('sources list'),
      });
    },
    SLOW,
  );
});
