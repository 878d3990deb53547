import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { skippedVariants } from './services';

const run = promisify(execFile);

describe('real-service variants that cannot run', () => {
  it('are named with the variable they lack', () => {
    // Assembled, so this file does not carry the markers it tests for.
    const each = 'describe.each';
    const source = `${each}(backends)('x', () => {}); ${each}(${'storeKinds'}())('y', () => {});`;
    expect(skippedVariants(source, {})).toEqual([
      {
        variable: 'TEST_DATABASE_URL',
        reason: 'TEST_DATABASE_URL is not set',
        whats: ['the Postgres (Neon driver) backend'],
      },
      {
        variable: 'TEST_REDIS_URL',
        reason: 'TEST_REDIS_URL is not set',
        whats: ['the Upstash store through the REST bridge'],
      },
    ]);
    expect(
      skippedVariants(source, { TEST_DATABASE_URL: 'postgres://x', TEST_REDIS_URL: 'redis://x' }),
    ).toEqual([]);
    expect(skippedVariants("it('plain', () => {})", {})).toEqual([]);
  });

  it('fail the file under CI=true instead of skipping', { timeout: 120_000 }, async () => {
    // Its own contract count: it must not report into (and remove) this run's directory.
    const { CONTRACT_REPORT_DIR: _, ...outer } = process.env;
    const env = { ...outer, CI: 'true', TEST_REDIS_URL: '', TEST_DATABASE_URL: '' };
    const failure = await run('npx', ['vitest', 'run', 'test/store/store.test.ts'], { env }).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).not.toBe(0);
    expect(failure!.stdout + failure!.stderr).toContain('CI=true but TEST_REDIS_URL not set');
  });
});
