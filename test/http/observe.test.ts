import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log';
import { startTestApp, testPglite, withTestApp, seedFixtures } from '../support/harness';

/** A logger that keeps whole lines, fields included. */
function fieldLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const keep =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, message, fields });
  const log: Logger = { info: keep('info'), warn: keep('warn'), error: keep('error') };
  return { lines, log };
}

/** `Server-Timing` as `{ name: milliseconds }`. */
const timings = (header: string | null) =>
  Object.fromEntries(
    (header ?? '').split(',').map((part) => {
      const [name, ...params] = part.trim().split(';');
      const dur = params.find((p) => p.startsWith('dur='));
      return [name, dur ? Number(dur.slice(4)) : NaN];
    }),
  );

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids and Server-Timing', () => {
  const logger = fieldLogger();
  const app = withTestApp({ seed: seedFixtures, key: 'pro', deps: { log: logger.log } });

  it('gives every response a new request id, and a distinct one each time', async () => {
    const first = await app.fetch('/api/v1/health');
    const second = await app.fetch('/api/v1/signals');
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.status).toBe(401);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it("keeps the caller's well-formed id and replaces a malformed one", async () => {
    const kept = await app.fetch('/api/v1/health', { headers: { 'X-Request-Id': 'client-trace.42:abc' } });
    expect(kept.headers.get('x-request-id')).toBe('client-trace.42:abc');
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(129), 'quote"injection<>']) {
      const replaced = await app.fetch('/api/v1/health', { headers: { 'X-Request-Id': bad } });
      expect(replaced.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('exposes both headers to browsers', async () => {
    const res = await app.fetch('/api/v1/health');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'server-timing']));
    expect(res.headers.get('timing-allow-origin')).toBe('*');
  });

  it('reports database, store and total time; a keyed read spends time in both', async () => {
    const res = await app.fetch('/api/v1/signals?limit=5', { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(200);
    const t = timings(res.headers.get('server-timing'));
    expect(Object.keys(t).sort()).toEqual(['db', 'store', 'total']);
    expect(t.db).toBeGreaterThan(0);
    expect(t.store).toBeGreaterThanOrEqual(0);
    expect(t.total).toBeGreaterThanOrEqual(t.db);
  });

  it('reports no database time where the request touched no database', async () => {
    const res = await app.fetch('/api/v1/openapi.json');
    const t = timings(res.headers.get('server-timing'));
    expect(t.db).toBe(0);
    expect(t.total).toBeGreaterThan(0);
  });

  it('puts the id in the log lines of the request and in its 5xx problem body', async () => {
    const broken = await testPglite();
    const failing = await startTestApp(broken.db, { deps: { log: logger.log } });
    await broken.close();
    try {
      const res = await failing.fetch('/api/v1/signals', {
        headers: { 'X-Api-Key': app.key, 'X-Request-Id': 'support-ticket-0001' },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('x-request-id')).toBe('support-ticket-0001');
      expect(await res.json()).toMatchObject({
        code: 'service_unavailable',
        request_id: 'support-ticket-0001',
      });
      const lines = logger.lines.filter((line) => line.fields.request_id === 'support-ticket-0001');
      expect(lines.map((line) => line.message)).toContain('dependency unavailable');
    } finally {
      await failing.close();
    }
  });

  it('keeps request ids out of 4xx problem bodies', async () => {
    const res = await app.fetch('/api/v1/signals?min_score=11', { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(400);
    expect(await res.json()).not.toHaveProperty('request_id');
  });
});
