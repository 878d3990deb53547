import { describe, expect, it } from 'vitest';
import { documentedPaths } from '../support/document';
import { withTestApp } from '../support/harness';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Every documented path with the methods the document declares for it. */
const documented = () =>
  documentedPaths().map(({ path, methods }) => ({
    path,
    declared: methods.filter((method) => (METHODS as readonly string[]).includes(method)),
  }));

describe('unsupported methods', () => {
  const app = withTestApp();

  const paths = documented();

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
