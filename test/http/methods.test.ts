import { describe, expect, it } from 'vitest';
import { openApiDocument, createApp } from '../../src/app';
import { DOCS_SCRIPT_PATH } from '../../src/routes/docs';
import { withTestApp } from '../support/harness';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** Every documented path (parameters filled in) with the methods the document declares for it. */
function documentedPaths(): { path: string; declared: string[] }[] {
  const document = openApiDocument(createApp()) as unknown as {
    paths: Record<string, Record<string, unknown>>;
  };
  // The docs page's script is a static file outside the app (Node serves it from node_modules,
  // Workers as an asset), so the app's method routing does not apply to it.
  const routes = Object.entries(document.paths).filter(([template]) => template !== DOCS_SCRIPT_PATH);
  return routes.map(([template, operations]) => ({
    path: template.replace(/\{[^}]+\}/g, SAMPLE_ID),
    declared: Object.keys(operations)
      .map((method) => method.toUpperCase())
      .filter((method) => (METHODS as readonly string[]).includes(method)),
  }));
}

describe('unsupported methods', () => {
  const app = withTestApp();

  const paths = documentedPaths();

  it('covers the whole document', () => {
    expect(paths.length).toBeGreaterThan(20);
  });

  it.each(paths)(
    '$path answers 405 with Allow for the methods the document does not declare',
    async ({ path, declared }) => {
      const expected = [...declared, ...(declared.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
      const undeclared = METHODS.filter((method) => !declared.includes(method));
      expect(undeclared.length).toBeGreaterThan(0);
      for (const method of undeclared) {
        const res = await app.fetch(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.headers.get('allow')!.split(', ').sort()).toEqual(expected);
        const body = await res.json<{ code: string; status: number }>();
        expect(body).toMatchObject({ code: 'method_not_allowed', status: 405 });
      }
    },
  );

  it('answers 405 on a path with a parameter whatever its value', async () => {
    const res = await app.fetch('/api/v1/webhooks/not-even-a-uuid', { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('DELETE');
  });

  it.each([
    ['GET', '/api/v1/nothing-here'],
    ['DELETE', '/api/v1/nothing-here'],
    ['GET', '/api/v2/signals'],
    ['POST', '/'],
  ])('keeps %s %s a 404', async (method, path) => {
    const res = await app.fetch(path, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect((await res.json<{ code: string }>()).code).toBe('not_found');
  });
});
