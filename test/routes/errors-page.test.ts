import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS_DOC_PATH, PROBLEMS } from '../../src/http/problem';
import { startTestApp, type TestApp, withTestApp } from '../support/harness';

/** A GET over a real socket with a `Host` header of our choosing (fetch would not send one). */
function problemWithHost(app: TestApp, path: string, host: string): Promise<{ type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: app.port, path, headers: { Host: host }, setHost: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(JSON.parse(body)));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('problem types resolve to the errors page', () => {
  let configured: TestApp;
  const app = withTestApp();
  beforeAll(async () => {
    configured = await startTestApp(app.db, { config: { PUBLIC_BASE_URL: 'https://api.example.org/' } });
  });
  afterAll(async () => {
    await configured?.close();
  });

  it('links each problem to its code on the errors page of the server that answered, which has that anchor', async () => {
    const answers = [
      await app.fetch('/api/v1/nowhere'),
      await app.fetch('/api/v1/signals'),
      await app.fetch('/api/v1/stats?x=1', { method: 'DELETE' }),
      await app.fetch('/api/v1/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{',
      }),
    ];
    const codes: string[] = [];
    for (const answer of answers) {
      const problem = await answer.json<{ type: string; code: string }>();
      codes.push(problem.code);
      expect(problem.type).toBe(`${app.url}${ERRORS_DOC_PATH}#${problem.code}`);
      const page = await fetch(problem.type);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain(`<section id="${problem.code}">`);
    }
    expect(codes).toEqual(['not_found', 'missing_api_key', 'method_not_allowed', 'invalid_json']);
  });

  it('has one section per code of the code table, in order, with its status and title', async () => {
    const html = await (await app.fetch(ERRORS_DOC_PATH)).text();
    const ids = [...html.matchAll(/<section id="([a-z_]+)">/g)].map((m) => m[1]);
    expect(ids).toEqual(Object.keys(PROBLEMS));
    expect(html).toContain('<h2><code>rate_limited</code> <small>429</small></h2>');
    expect(html).toContain('<strong>Rate limit exceeded.</strong>');
    expect(html).not.toMatch(/<script/);
  });

  it('uses PUBLIC_BASE_URL when it is set, whatever the Host header says', async () => {
    const problem = await problemWithHost(configured, '/api/v1/nowhere', 'attacker.example');
    expect(problem.type).toBe(`https://api.example.org${ERRORS_DOC_PATH}#not_found`);
  });

  it('stays a relative reference, never an injected origin, when the Host header is not a host', async () => {
    const problem = await problemWithHost(app.app, '/api/v1/nowhere', 'evil_host.example');
    expect(problem.type).toBe(`${ERRORS_DOC_PATH}#not_found`);
  });

  it('is a public page, rate-limited like the reference page, that nothing may frame', async () => {
    const res = await app.fetch(ERRORS_DOC_PATH);
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
