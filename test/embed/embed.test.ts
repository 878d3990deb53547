import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderWidgetError } from '../../src/embed/render';
import { ingestSignals } from '../../src/ingest/pipeline';
import { FIXTURE, fixtureItems } from '../support/fixture';
import { backends, withTestApp, embedCsp } from '../support/harness';
import { NASTY } from '../feeds/nasty';

const NOW = new Date('2026-11-22T00:00:00Z');
const titles = (html: string) => [...html.matchAll(/class="t"[^>]*>([^<]*)</g)].map((m) => m[1]);

describe.each(backends)('GET /embed on $name', (backend) => {
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      await ingestSignals(db, [...fixtureItems(), ...Object.values(NASTY)]);
    },
    deps: { now: () => NOW },
  });

  it('renders the newest signals of the last 24 hours as HTML', async () => {
    const res = await app.fetch('/embed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en" class="t-auto">');
    expect(titles(html)).toEqual([
      'AT&amp;T &lt;b&gt;outage&lt;/b&gt; ]]&gt; &quot;quoted&quot; &#39;single&#39; 🚨 bell esc ]]&gt; end',
      FIXTURE.lagosResolved.title,
      FIXTURE.lyonHospital.title,
      FIXTURE.globalOutbreak.title,
    ]);
    expect(html).toContain('data-src="/embed/data"');
  });

  it('sends its own CSP: framable from any parent, only its own hashed script and style, no cookies', async () => {
    const res = await app.fetch('/embed?theme=dark');
    const html = await res.text();
    const csp = res.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(embedCsp(html));
    // No frame-ancestors at all: `*` would still exclude file: and about:blank parents.
    expect(csp).not.toContain('frame-ancestors');
    // Its own two scripts (the list, and the live stream of src/embed/live.ts), nothing else.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toMatch(/<[^>]*\s(style|on[a-z]+)=/i); // no inline attributes the CSP would block
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('escapes every text: hostile signals appear as text, never as markup', async () => {
    const html = await (await app.fetch('/embed?layers=cyber')).text();
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img');
    expect(html).toContain(
      'Payload &lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;',
    );
    expect(html).toContain('href="https://nasty.example.com/markup?a=1&amp;b=2"');
    expect(html).toContain('Nasty &lt;Wire&gt; &amp; Co');
  });

  it.each([
    ['layers=cyber', ['AT&amp;T', FIXTURE.lyonHospital.title]],
    ['country=NG&hours=168', [FIXTURE.lagosResolved.title, FIXTURE.lagosPort.title]],
    ['layers=supply_chain,health&hours=72', [FIXTURE.lagosResolved.title, FIXTURE.globalOutbreak.title]],
    ['hours=1', []],
    ['hours=168&limit=2', ['AT&amp;T', FIXTURE.lagosResolved.title]],
  ])('filters %s', async (query, expected) => {
    const html = await (await app.fetch(`/embed?${query}`)).text();
    expect(titles(html).map((t) => (t!.startsWith('AT&amp;T') ? 'AT&amp;T' : t))).toEqual(expected);
    if (expected.length === 0) expect(html).toContain('No signals in the last 1 hours.');
  });

  it('points the refresh at the same selection, and serves it as JSON', async () => {
    const html = await (await app.fetch('/embed?theme=light&country=ng&hours=168&utm_source=x')).text();
    expect(html).toContain('data-src="/embed/data?country=ng&amp;hours=168"');
    expect(html).toContain('data-refresh="120"');
    const res = await app.fetch('/embed/data?country=ng&hours=168');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const data = await res.json<{ items: { title: string; source_url: string | null }[] }>();
    expect(data.items.map((i) => i.title)).toEqual([FIXTURE.lagosResolved.title, FIXTURE.lagosPort.title]);
    expect(data.items[0]!.source_url).toBe(FIXTURE.lagosResolved.source_url);
  });

  it('answers If-None-Match with 304 on the page and its data', async () => {
    for (const path of ['/embed?theme=dark', '/embed/data']) {
      const etag = (await app.fetch(path)).headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      const again = await app.fetch(path, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
    }
  });

  it('stays small: ten signals are under 6 KiB gzipped, with the map above them under 24 KiB', async () => {
    const list = await (await app.fetch('/embed?hours=168&view=list')).text();
    expect(titles(list)).toHaveLength(10);
    expect(list).not.toContain('<svg');
    expect(gzipSync(list).length).toBeLessThan(6 * 1024);
    const both = await (await app.fetch('/embed?hours=168')).text();
    expect(titles(both)).toHaveLength(10);
    expect(both).toContain('<svg');
    expect(gzipSync(both).length).toBeLessThan(24 * 1024);
  });

  it('serves the windows the rest of the API serves: up to 30 days, as hours or days', async () => {
    for (const query of ['hours=720', 'days=30', 'theme=dark&layers=cyber,military&hours=720']) {
      const res = await app.fetch(`/embed?${query}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Last 720 h');
    }
    const week = await (await app.fetch('/embed?days=7&view=list')).text();
    expect(week).toContain('Last 168 h');
    expect(titles(week)).toHaveLength(10);
  });

  it('shows the map of the window above the list, or alone with its table (view=map)', async () => {
    const both = await (await app.fetch('/embed?hours=168')).text();
    expect(both.indexOf('<svg')).toBeLessThan(both.indexOf('<ol id="list">'));
    const map = await (await app.fetch('/embed?hours=168&view=map&theme=dark')).text();
    expect(map).not.toContain('<ol id="list">');
    expect(map).toContain('<main id="w" class="v-map"');
    expect(map).toContain('<html lang="en" class="t-dark">');
    // One mark per event with coordinates, each with its title; the same rows in the table.
    const marks = [...map.matchAll(/<circle [^>]*data-n="(\d+)"[^>]*><title>([^<]+)<\/title>/g)];
    expect(marks.length).toBeGreaterThan(5);
    expect(marks.map((m) => m[2]).join('\n')).toContain(
      `${FIXTURE.kyivStrike.title} · military · score 9.2 · 1 source · 20 Nov 06:00 UTC`,
    );
    expect(map.match(/<tbody>(.*)<\/tbody>/)![1]!.match(/<tr>/g)).toHaveLength(marks.length);
    expect(map).toContain(
      `<a href="${FIXTURE.kyivStrike.source_url}" target="_blank" rel="noopener noreferrer"><circle`,
    );
  });

  it.each([
    ['theme=sepia', 'theme'],
    ['hours=0', 'hours'],
    ['hours=721', 'hours'],
    ['days=31', 'days'],
    ['days=0', 'days'],
    ['hours=24&days=1', 'days'],
    ['min_score=11', 'min_score'],
    ['region=Atlantis', 'region'],
    ['view=grid', 'view'],
    ['hours=1.5', 'hours'],
    ['layers=weather', 'layers'],
    ['country=XX', 'country'],
    ['limit=31', 'limit'],
  ])('rejects %s with a readable HTML page naming %s, framable anywhere', async (query, field) => {
    const res = await app.fetch(`/embed?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'$/,
    );
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<h1>Invalid request</h1>');
    expect(html).toContain(`<li><code>${field}</code> `);
    expect(html).not.toContain('"code"');
  });

  it('themes the error page as asked, in the widget style, with the allowed range', async () => {
    const res = await app.fetch('/embed?theme=dark&layers=cyber,military&hours=721');
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<html lang="en" class="t-dark">');
    expect(html).toContain('<li><code>hours</code> must be between 1 and 720</li>');
    // The stylesheet is the widget's own, allowed by its hash.
    const style = html.match(/<style>([^<]*)<\/style>/)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(res.headers.get('content-security-policy')).toContain(`style-src 'sha256-${hash}'`);
    // A bad theme falls back to following the viewer's scheme.
    const bad = await (await app.fetch('/embed?theme=sepia')).text();
    expect(bad).toContain('<html lang="en" class="t-auto">');
  });

  it('renders the error page with only its own few tags, every text escaped', async () => {
    const res = await app.fetch(`/embed?layers=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    expect(res.status).toBe(400);
    const served = await res.text();
    const hostile = renderWidgetError(
      {
        title: '<script>alert(1)</script>',
        detail: '"><img src=x onerror=alert(2)>',
        errors: [{ path: '<b>layers</b>', message: "it's <i>bad</i> & wrong" }],
      },
      400,
    );
    const allowed = [
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'main',
      'header',
      'h1',
      'p',
      'ul',
      'li',
      'code',
    ];
    for (const html of [served, hostile]) {
      const tags = [...html.matchAll(/<([a-z][a-z0-9]*)/g)].map((m) => m[1]!);
      expect(tags.filter((tag) => !allowed.includes(tag))).toEqual([]);
    }
    expect(hostile).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(hostile).toContain(
      '<li><code>&lt;b&gt;layers&lt;/b&gt;</code> it&#39;s &lt;i&gt;bad&lt;/i&gt; &amp; wrong</li>',
    );
  });

  it('keeps the data endpoint unframeable, and its errors problem+json', async () => {
    const res = await app.fetch('/embed/data?hours=0');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const data = await app.fetch('/embed/data');
    expect(data.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(data.headers.get('x-frame-options')).toBe('DENY');
  });
});
