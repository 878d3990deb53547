import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteDatabase } from '../../src/db/node';
import { hashKey } from '../../src/keys/key';
import { findKeyByHash } from '../../src/keys/service';
import { ADMIN_TOKEN, withTestApp } from '../support/harness';

const run = promisify(execFile);

/** Runs `npm run cli -- …` (as node + tsx) and parses the JSON it prints. */
async function cli(args: string[], env: Record<string, string>) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', SEED: 'false', ...env },
  });
  return JSON.parse(stdout) as { key?: string; tier: string; email?: string };
}

describe('the keys commands of the operator CLI', () => {
  let dataDir: string;
  const app = withTestApp();
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'keys-cli-'));
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('issues a pro key and changes its tier through a running server', async () => {
    const env = { ADMIN_TOKEN, DATA_DIR: dataDir };
    const issued = await cli(
      ['keys', 'create', '--email', 'Ops@Example.org', '--tier', 'pro', '--url', app.url],
      env,
    );
    expect(issued.tier).toBe('pro');
    const before = await app.fetch('/api/v1/signals?limit=1', { headers: { 'X-Api-Key': issued.key! } });
    expect(before.headers.get('x-ratelimit-tier')).toBe('pro');

    await cli(['keys', 'tier', '--email', 'ops@example.org', '--tier', 'free', '--url', app.url], env);
    const after = await app.fetch('/api/v1/signals?limit=1', { headers: { 'X-Api-Key': issued.key! } });
    expect(after.headers.get('x-ratelimit-tier')).toBe('free');
  });

  it('works on the embedded database directly when no server is given', async () => {
    const env = { DATA_DIR: dataDir };
    const issued = await cli(['keys', 'create', '--email', 'direct@example.org', '--tier', 'pro'], env);
    expect(await cli(['keys', 'tier', '--email', 'DIRECT@example.org', '--tier', 'free'], env)).toEqual({
      email: 'direct@example.org',
      tier: 'free',
    });
    const stored = await pgliteDatabase(join(dataDir, 'pglite'));
    try {
      expect(await findKeyByHash(stored.db, hashKey(issued.key!))).toMatchObject({
        tier: 'free',
        revoked: false,
      });
    } finally {
      await stored.close();
    }
  }, 120_000); // three cold starts of an on-disk PGlite

  it('refuses an unknown tier', async () => {
    await expect(
      cli(['keys', 'create', '--email', 'a@example.org', '--tier', 'gold'], { DATA_DIR: dataDir }),
    ).rejects.toThrow(/--tier must be free or pro/);
  });
});
