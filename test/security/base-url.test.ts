import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidHost } from '../../src/http/origin';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE } from '../support/fixture';
import { startTestApp, type TestApp, withTestApp } from '../support/harness';

interface Raw {
  status: number;
  contentType: string;
  body: string;
}

/** A GET over a real socket with a `Host` header of our choosing (fetch would not send one). */
function getWithHost(app: TestApp, path: string, host: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: app.port, path, method: 'GET', headers: { Host: host }, setHost: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, contentType: res.headers['content-type'] ?? '', body }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Host values no link may carry; each passes the Node adapter's own check and reaches the app. */
const BAD_HOSTS = ['a..b', '-evil-.example', 'evil_host.example', 'evil.example:0'];

describe('public base URL and the Host header', () => {
  let configured: TestApp;
  const app = withTestApp({
    seed: async (db) => {
      await ingestSignals(db, [FIXTURE.lyonHospital]);
    },
  });
  beforeAll(async () => {
    configured = await startTestApp(app.db, {
      config: { PUBLIC_BASE_URL: 'https://signals.example.org/' },
    });
  });
  afterAll(async () => {
    await configured?.close();
  });

  it.each([
    ['signals.example.org', true],
    ['Signals.Example.ORG:8443', true],
    ['localhost', true],
    ['127.0.0.1:3000', true],
    ['[::1]', true],
    ['[2001:db8::1]:443', true],
    ['example.org.', true],
    ['a..b', false],
    ['-evil-.example', false],
    ['evil_host.example', false],
    ['evil.example:0', false],
    ['evil.example:65536', false],
    ['evil.example:', false],
    ['evil.example/path', false],
    ['evil.example"><script>', false],
    ['user@evil.example', false],
    ['[not-v6]', false],
    ['', false],
  ])('isValidHost(%j) is %s', (host, valid) => {
    expect(isValidHost(host)).toBe(valid);
  });

  it.each(BAD_HOSTS)(
    'refuses Host %j with a 400 on the feed (problem) and the widget (its error page)',
    async (host) => {
      const feed = await getWithHost(app.app, '/api/v1/feed?format=json', host);
      expect(feed.status, feed.body).toBe(400);
      expect(feed.contentType).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(feed.body)).toMatchObject({
        code: 'invalid_request',
        errors: [{ path: 'header.host' }],
      });
      // The widget shows its errors in the frame as a small page naming the field.
      const widget = await getWithHost(app.app, '/embed', host);
      expect(widget.status, widget.body).toBe(400);
      expect(widget.contentType).toMatch(/^text\/html/);
      expect(widget.body).toContain('header.host');
    },
  );

  it('never writes a hostile Host into a link, whoever refuses it', async () => {
    const res = await getWithHost(
      app.app,
      '/api/v1/feed?format=json',
      'evil.example"><script>alert(1)</script>',
    );
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('<script>');
  });

  it('builds links from a valid Host when PUBLIC_BASE_URL is not set', async () => {
    const res = await getWithHost(app.app, '/api/v1/feed?format=json', 'Signals.Example.org:8443');
    expect(res.status).toBe(200);
    const feed = JSON.parse(res.body) as { home_page_url: string; feed_url: string };
    expect(feed.home_page_url).toBe('http://signals.example.org:8443/api/v1/docs');
    expect(feed.feed_url).toBe('http://signals.example.org:8443/api/v1/feed?format=json');
    const widget = await getWithHost(app.app, '/embed?hours=168', '[::1]:8080');
    expect(widget.status).toBe(200);
    expect(widget.body).toContain('href="http://[::1]:8080/api/v1/docs"');
  });

  it('uses PUBLIC_BASE_URL for every link when it is set, whatever the Host says', async () => {
    const res = await getWithHost(configured, '/api/v1/feed?format=json', 'a..b');
    expect(res.status).toBe(200);
    const feed = JSON.parse(res.body) as { home_page_url: string; feed_url: string };
    expect(feed.home_page_url).toBe('https://signals.example.org/api/v1/docs');
    expect(feed.feed_url).toBe('https://signals.example.org/api/v1/feed?format=json');
    expect(res.body).not.toContain('a..b');
    const widget = await getWithHost(configured, '/embed', 'a..b');
    expect(widget.status).toBe(200);
    expect(widget.body).toContain('href="https://signals.example.org/api/v1/docs"');
    expect(widget.body).not.toContain('a..b');
  });
});
