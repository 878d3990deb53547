import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { pgliteDatabase } from '../src/db/node';
import { createWebhook } from '../src/webhooks/service';
import { FIXTURE, fixtureItems } from './support/fixture';
import { createKey } from './support/harness';
import { startReceiver } from './webhooks/receiver';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'cli-test-'));

/** Runs `npm run cli -- …` the way an operator would, on an embedded database in `dataDir`. */
async function cliWith(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run('npx', ['tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}
const cli = (...args: string[]) => cliWith({}, ...args);

describe('operator CLI', { timeout: 180_000 }, () => {
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

  it('runs one webhook dispatcher pass that delivers to a registered webhook', async () => {
    const receiver = await startReceiver();
    try {
      // The CLI process holds the embedded database only while it runs, so the test may open it between runs.
      const database = await pgliteDatabase(join(dataDir, 'pglite'));
      try {
        const key = await createKey(database.db);
        await createWebhook(database.db, key.id, { url: receiver.url }, undefined);
      } finally {
        await database.close();
      }
      const file = join(dataDir, 'one.ndjson');
      writeFileSync(
        file,
        JSON.stringify({ ...FIXTURE.kyivStrike, source_url: 'https://wire.example.com/cli-dispatch' }),
      );
      expect(await cli('ingest', file)).toMatchObject({ accepted: 1 });
      // The dispatcher leaves signals younger than its 1 s settling margin for the next pass.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const insecure = { WEBHOOK_ALLOW_INSECURE: 'true' };
      expect(await cliWith(insecure, 'dispatch')).toMatchObject({
        webhooks: 1,
        deliveries: 1,
        succeeded: 1,
        signals: 1,
      });
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.body.signals).toHaveLength(1);
      expect(await cliWith(insecure, 'dispatch')).toMatchObject({ deliveries: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('explains its usage on a bad command', async () => {
    await expect(cli('keys', 'create', '--email', 'x@example.org', '--tier', 'gold')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--tier must be free or pro'),
    });
  });
});
