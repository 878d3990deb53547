import { defineConfig } from 'vitest/config';
import base from './vitest.config';
import unitFiles from './test/unit-files.json';

/**
 * `npm run test:unit`: the fast loop, the test files that need no database, no server, no
 * socket and no browser. Chosen by name from test/unit-files.json, so nothing a file merely says
 * (a comment mentioning `fetch(`) moves it between loops; test/unit-files.test.ts fails when the
 * list and what the files import disagree.
 */
// Not mergeConfig, which would add these files to the base include. No contract setup either:
// these files send no request, and the setup would load the whole app into every one of them.
export default defineConfig({
  resolve: base.resolve,
  test: { ...base.test, include: unitFiles, setupFiles: [], reporters: ['default'] },
});
