import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * `npm run test:unit`: the fast loop, the test files that need no database, no server, no
 * socket and no browser. Chosen by what a file imports or calls, so a new test joins or leaves
 * the loop by itself: any of these marks it as needing more than the process it runs in.
 */
const NEEDS_MORE =
  /support\/(harness|services|neon|upstash|contract)|startReceiver|db\/(node|client)|node-runtime|workerd|miniflare|playwright|chromium|node:(child_process|http|https|net)|serveApp|startTestApp|createServer|ioredis|store\/upstash|TEST_DATABASE_URL|TEST_REDIS_URL|\bfetch\(/;

const unitFiles = readdirSync('test', { recursive: true })
  .map((file) => join('test', String(file)))
  .filter((file) => file.endsWith('.test.ts') && !NEEDS_MORE.test(readFileSync(file, 'utf8')));

// Not mergeConfig, which would add these files to the base include. No contract setup either:
// these files send no request, and the setup would load the whole app into every one of them.
export default defineConfig({
  resolve: base.resolve,
  test: { ...base.test, include: unitFiles, setupFiles: [], reporters: ['default'] },
});
