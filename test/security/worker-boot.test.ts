import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';

const ctx = {
  waitUntil: () => undefined,
  passThroughOnException: () => undefined,
  props: {},
} as unknown as ExecutionContext;

describe('the API Worker without usable configuration', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['no DATABASE_URL', {}, /DATABASE_URL/],
    [
      'an invalid binding',
      { DATABASE_URL: 'postgres://db.example.com/app', WEBHOOK_ENCRYPTION_KEY: 'not-a-key' },
      /WEBHOOK_ENCRYPTION_KEY/,
    ],
  ])('answers problem+json 503 service_unavailable with %s, and logs why', async (_what, env, reason) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await worker.fetch(new Request('https://api.example.com/api/v1/health'), env, ctx);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json<{ code: string; status: number; detail: string }>();
    expect(body).toMatchObject({ status: 503, code: 'service_unavailable' });
    // The reason goes to the log, not to the caller.
    expect(body.detail).not.toMatch(reason);
    expect(logged.mock.calls.map((args) => String(args[0])).join('\n')).toMatch(reason);
  });
});
