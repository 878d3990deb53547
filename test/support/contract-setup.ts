/**
 * Vitest setup (vitest.config.ts `setupFiles`): fails the test during which a response broke
 * the OpenAPI contract, even when the test caught the error its fetch threw, and saves the
 * file's counts for the contract reporter.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { contractStats, saveContractStats } from './contract';

let reported = 0;

function unreported(): string[] {
  const fresh = contractStats.mismatches.slice(reported);
  reported = contractStats.mismatches.length;
  return fresh;
}

afterEach(() => {
  const fresh = unreported();
  if (fresh.length) throw new Error(`responses broke the OpenAPI contract:\n${fresh.join('\n')}`);
});

afterAll(() => {
  saveContractStats(expect.getState().testPath ?? 'unknown');
  const fresh = unreported();
  if (fresh.length) throw new Error(`responses broke the OpenAPI contract:\n${fresh.join('\n')}`);
});
