import { describe, expect, it } from 'vitest';
import { withTestApp, seedFixtures } from '../support/harness';

/** The headers that decide who may frame a page and what it may run. */
const FRAMING = ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy'];
const framing = (res: Response) => Object.fromEntries(FRAMING.map((name) => [name, res.headers.get(name)]));

describe('a 304 carries the same policy as its 200', () => {
  const app = withTestApp({ seed: seedFixtures, deps: { now: () => new Date('2026-11-22T00:00:00Z') } });

  it.each(['/embed?theme=dark&hours=168', '/embed/data?hours=168', '/api/v1/feed?format=atom'])(
    '%s',
    async (path) => {
      const full = await app.fetch(path);
      expect(full.status).toBe(200);
      const etag = full.headers.get('etag')!;
      const revalidated = await app.fetch(path, { headers: { 'If-None-Match': etag } });
      expect(revalidated.status).toBe(304);
      expect(framing(revalidated)).toEqual(framing(full));
      expect(full.headers.get('content-security-policy')).toBeTruthy();
    },
  );

  it('the widget 304 is the widget policy, not a fallback', async () => {
    const full = await app.fetch('/embed');
    const revalidated = await app.fetch('/embed', {
      headers: { 'If-None-Match': full.headers.get('etag')! },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'sha256-/,
    );
  });
});
