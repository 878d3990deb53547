import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureItems } from './support/fixture';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'cli-test-'));

/** Runs `npm run cli -- …` the way an operator would, on an embedded database in `dataDir`. */
async function cli(...args: string[]) {
  const { stdout } = await run('npx', ['tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('operator CLI', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('ingests an NDJSON file, then skips it as duplicates', async () => {
    const file = join(dataDir, 'signals.ndjson');
    writeFileSync(
      file,
      fixtureItems()
        .map((item) => JSON.stringify(item))
        .join('\n'),
    );
    expect(await cli('ingest', file)).toMatchObject({ accepted: 10, duplicates: 0, rejected: 0 });
    expect(await cli('ingest', file)).toMatchObject({ accepted: 0, duplicates: 10 });
  });

  it('creates a pro key and changes the tier', async () => {
    const created = await cli('keys', 'create', '--email', 'ops@example.org', '--tier', 'pro');
    expect(created).toMatchObject({ tier: 'pro', prefix: expect.stringMatching(/^sig_/) });
    expect(await cli('keys', 'tier', '--email', 'ops@example.org', '--tier', 'free')).toEqual({
      email: 'ops@example.org',
      tier: 'free',
    });
  });

  it('runs one webhook dispatcher pass', async () => {
    expect(await cli('dispatch')).toMatchObject({ webhooks: 0, deliveries: 0, failed: 0 });
  });

  it('explains its usage on a bad command', async () => {
    await expect(cli('keys', 'create', '--email', 'x@example.org', '--tier', 'gold')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--tier must be free or pro'),
    });
  });
});
