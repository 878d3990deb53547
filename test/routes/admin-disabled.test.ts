import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument, createApp } from '../../src/app';
import { ADMIN_TOKEN, startTestApp, type TestApp, withTestApp } from '../support/harness';

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** Every operation the document guards with the admin token, parameters filled in. */
function adminOperations(): [string, string][] {
  const document = openApiDocument(createApp()) as unknown as {
    paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, op]) => op.security?.some((s) => 'AdminToken' in s))
      .map(([method, _]): [string, string] => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, SAMPLE_ID)]),
  );
}

describe('the admin API without ADMIN_TOKEN configured', () => {
  let guarded: TestApp;
  const operations = adminOperations();
  const app = withTestApp({ config: { ADMIN_TOKEN: undefined } });
  beforeAll(async () => {
    guarded = await startTestApp(app.db);
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it('has admin operations to check', () => {
    expect(operations.length).toBeGreaterThan(3);
  });

  it.each(operations)('%s %s does not exist (404), whatever token is sent', async (method, path) => {
    const variants: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${ADMIN_TOKEN}` },
      { Authorization: 'Bearer ' },
    ];
    for (const headers of variants) {
      const res = await app.fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: method === 'GET' ? undefined : '{}',
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await res.json<{ code: string }>()).code).toBe('not_found');
    }
    // With a token configured the same call is a 401 without it: the 404 is the missing token's doing.
    const res = await guarded.fetch(path, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: method === 'GET' ? undefined : '{}',
    });
    expect(res.status).toBe(401);
  });
});
