import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter } from 'vitest/reporters';
import { defineConfig } from 'vitest/config';

// Where each test file leaves the count of responses it checked against the OpenAPI document
// (test/support/contract.ts); the workers inherit it, the reporter below adds them up.
// A run started inside a test with the variable set adds to the outer run's count and leaves
// the directory to it.
const ownDir = !process.env.CONTRACT_REPORT_DIR;
const contractDir = (process.env.CONTRACT_REPORT_DIR ??= mkdtempSync(join(tmpdir(), 'contract-')));

/** Prints how many responses were validated against the document, before vitest's summary. */
const contractReporter: Reporter = {
  onTestRunEnd() {
    type Stats = { validated: number; preflights: number; mismatches: string[] };
    let files: Stats[] = [];
    try {
      files = readdirSync(contractDir).map(
        (name) => JSON.parse(readFileSync(join(contractDir, name), 'utf8')) as Stats,
      );
      if (ownDir) rmSync(contractDir, { recursive: true, force: true });
    } catch {
      // no test file sent a request
    }
    const sum = (pick: (f: Stats) => number) => files.reduce((total, f) => total + pick(f), 0);
    console.log(
      `\n OpenAPI contract: ${sum((f) => f.validated)} responses validated against the document ` +
        `in ${files.length} test files, ${sum((f) => f.mismatches.length)} mismatched ` +
        `(${sum((f) => f.preflights)} CORS preflights are outside it).`,
    );
  },
};

export default defineConfig({
  // The repository uses the client package from its source (as tsconfig's `paths` does), so
  // tests need no build; the packed build has its own check (scripts/client-smoke.ts).
  resolve: {
    alias: {
      '@signal-intel/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/pglite-template.ts'],
    setupFiles: ['test/support/contract-setup.ts'],
    reporters: [contractReporter, 'default'],
  },
});
