import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { memoryStore } from '../../src/store/memory';
import { NASTY } from '../feeds/nasty';
import { project } from '../../src/embed/map';
import { FIXTURE, fixtureItems } from '../support/fixture';
import { backends, startTestApp, type TestApp } from '../support/harness';
import { testDatabaseUrl } from '../support/services';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = 'test-output';
const NOW = new Date('2026-11-22T00:00:00Z');

/**
 * `npm test` on a machine without Chromium skips this file; CI (which sets TEST_DATABASE_URL and
 * installs the `chromium` package in .ci/run) always runs it, so it can never skip silently there.
 */
const runBrowser = existsSync(CHROMIUM) || Boolean(testDatabaseUrl());

/**
 * The widget in Debian's headless Chromium, framed by a host page on another origin
 * (127.0.0.1 hosts, localhost serves the widget), with the iframe attributes of docs/feeds-export-embed.md.
 */
describe.skipIf(!runBrowser)('the /embed widget in a browser', () => {
  let database: DatabaseHandle;
  let app: TestApp;
  let host: Server;
  let hostOrigin: string;
  let widgetOrigin: string;
  let browser: Browser;
  let storeClock = NOW.getTime();

  beforeAll(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    database = await backends[0]!.open();
    await ingestSignals(database.db, [...fixtureItems(), ...Object.values(NASTY)]);
    app = await startTestApp(database.db, {
      store: memoryStore(() => storeClock),
      deps: { now: () => NOW },
    });
    widgetOrigin = `http://localhost:${app.port}`;
    host = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      const src = `${widgetOrigin}/embed?${url.searchParams.get('q') ?? ''}`;
      const width = Number(url.searchParams.get('width') ?? '420');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Host</title></head>` +
          `<body><h1>A host page</h1><iframe id="widget" src="${src.replaceAll('&', '&amp;')}" width="${width}" height="640" ` +
          `title="Latest signals" loading="lazy" referrerpolicy="no-referrer" ` +
          `sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe></body></html>`,
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await app?.close();
    await database?.close();
  });

  interface Visit {
    context: BrowserContext;
    page: Page;
    frame: Frame;
    problems: string[];
    requests: string[];
  }

  /** Opens the host page framing `/embed?query`, recording console errors and every request. */
  async function visit(
    query: string,
    options: { colorScheme?: 'light' | 'dark'; width?: number; fakeClock?: boolean; ready?: string } = {},
  ): Promise<Visit> {
    const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light' });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('request', (request) => requests.push(request.url()));
    if (options.fakeClock) await page.clock.install({ time: NOW });
    const hostUrl = `${hostOrigin}/?q=${encodeURIComponent(query)}&width=${options.width ?? 420}`;
    await page.goto(hostUrl, { waitUntil: 'load' });
    const handle = await page.waitForSelector('#widget');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector(options.ready ?? '#list');
    return { context, page, frame, problems, requests };
  }

  const titles = (frame: Frame) => frame.$$eval('#list .t', (nodes) => nodes.map((n) => n.textContent));
  const background = (frame: Frame) => frame.evaluate(() => getComputedStyle(document.body).backgroundColor);

  it.each([
    ['light', 'light', 'rgb(255, 255, 255)'],
    ['dark', 'light', 'rgb(17, 21, 27)'],
    ['auto', 'dark', 'rgb(17, 21, 27)'],
    ['auto', 'light', 'rgb(255, 255, 255)'],
  ] as const)('applies theme=%s (viewer prefers %s), with no console errors', async (theme, scheme, bg) => {
    const { context, page, frame, problems, requests } = await visit(`theme=${theme}&hours=168`, {
      colorScheme: scheme,
    });
    try {
      expect(await background(frame)).toBe(bg);
      expect(await titles(frame)).toHaveLength(10);
      expect(problems).toEqual([]);
      // Nothing but the host page and the widget's own origin is ever contacted.
      expect(requests.every((url) => url.startsWith(hostOrigin) || url.startsWith(widgetOrigin))).toBe(true);
      expect(await context.cookies()).toEqual([]); // no origin set a cookie
      await (await page.$('#widget'))!.screenshot({ path: `${OUTPUT}/embed-${theme}-${scheme}.png` });
    } finally {
      await context.close();
    }
  });

  /** Frames `/embed?query` from a page that has no http origin, and returns the frame once loaded. */
  async function frameFrom(page: Page, query: string, selector: string): Promise<Frame> {
    const handle = await page.waitForSelector('#widget');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector(selector, { timeout: 10_000 });
    expect(frame.url()).toBe(`${widgetOrigin}/embed${query ? `?${query}` : ''}`);
    return frame;
  }
  const iframe = (query: string) =>
    `<!doctype html><html><body><iframe id="widget" src="${widgetOrigin}/embed${query ? `?${query.replaceAll('&', '&amp;')}` : ''}" width="420" height="640"></iframe></body></html>`;

  it('can be framed from about:blank and from a file: page', async () => {
    const context = await browser.newContext();
    try {
      const blank = await context.newPage();
      expect(blank.url()).toBe('about:blank');
      await blank.setContent(iframe('hours=168'));
      expect(await titles(await frameFrom(blank, 'hours=168', '#list .t'))).toHaveLength(10);

      const file = join(mkdtempSync(join(tmpdir(), 'embed-host-')), 'host.html');
      writeFileSync(file, iframe('layers=cyber'));
      const local = await context.newPage();
      await local.goto(pathToFileURL(file).href);
      const frame = await frameFrom(local, 'layers=cyber', '#list .t');
      expect(await titles(frame)).toHaveLength(2);
    } finally {
      await context.close();
    }
  });

  it('shows a parameter error as a readable message inside the frame', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.setContent(iframe('hours=0&theme=sepia'));
      const frame = await frameFrom(page, 'hours=0&theme=sepia', '#error');
      expect(await frame.textContent('h1')).toBe('Invalid request');
      const fields = await frame.$$eval('#error li code', (nodes) => nodes.map((n) => n.textContent));
      expect(fields.sort()).toEqual(['hours', 'theme']);
    } finally {
      await context.close();
    }
  });

  it('applies the layer, country and hours filters', async () => {
    for (const [query, expected] of [
      ['layers=cyber', [NASTY.markup.title.replace(/[\u0007\u001B]/g, ''), FIXTURE.lyonHospital.title]],
      ['country=NG&hours=168', [FIXTURE.lagosResolved.title, FIXTURE.lagosPort.title]],
      ['hours=1', []],
    ] as const) {
      const { context, frame, problems } = await visit(query);
      try {
        const shown = (await titles(frame)).map((t) => t?.replace(/[\u0007\u001B]/g, ''));
        expect(shown).toEqual(expected);
        if (expected.length === 0) {
          expect(await frame.textContent('#list')).toBe('No signals in the last 1 hours.');
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('keeps <script> and onerror= payloads inert, as text', async () => {
    const { context, frame, problems } = await visit('layers=cyber&theme=dark');
    try {
      expect(await frame.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await frame.$$('#list script, #list img')).toHaveLength(0);
      const text = await frame.textContent('#list .d');
      expect(text).toContain('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a 300 px wide frame without horizontal scrolling', async () => {
    const { context, page, frame } = await visit('hours=168&theme=light', { width: 300 });
    try {
      const { scroll, client } = await frame.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll).toBeLessThanOrEqual(client);
      await (await page.$('#widget'))!.screenshot({ path: `${OUTPUT}/embed-300px.png` });
    } finally {
      await context.close();
    }
  });

  it('refreshes the list in place, without reloading the page', async () => {
    const { context, frame, problems } = await visit('layers=political&hours=168', { fakeClock: true });
    try {
      await frame.evaluate(() => {
        (window as unknown as { __loadedOnce?: boolean }).__loadedOnce = true;
      });
      expect(await titles(frame)).toEqual([FIXTURE.ottawaVote.title]);
      const update = {
        ...FIXTURE.ottawaVote,
        title: 'Ottawa vote passes <em>narrowly</em>',
        published_at: '2026-11-21T22:00:00Z',
        source_url: 'https://wire.example.com/ottawa-passes',
      };
      expect(await ingestSignals(database.db, [update])).toMatchObject({ accepted: 1 });
      storeClock += 61_000; // past the shared cache's lifetime
      await context.pages()[0]!.clock.fastForward(121_000);
      await frame.waitForFunction(() => document.querySelectorAll('#list .t').length === 2);
      expect(await titles(frame)).toEqual([update.title, FIXTURE.ottawaVote.title]);
      // The same document: a reload would have dropped this flag.
      expect(await frame.evaluate(() => (window as unknown as { __loadedOnce?: boolean }).__loadedOnce)).toBe(
        true,
      );
      expect(await frame.$$('#list em')).toHaveLength(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each(['light', 'dark'] as const)(
    'draws the map view (theme=%s) with country shapes and a mark where each fixture event is',
    async (theme) => {
      const { context, page, frame, problems, requests } = await visit(`view=map&hours=168&theme=${theme}`, {
        ready: '#mapbox svg',
      });
      try {
        expect(await frame.$$eval('#wmap .countries path', (nodes) => nodes.length)).toBeGreaterThan(5);
        expect(await frame.$('#list')).toBeNull();
        expect(await frame.textContent('#mapbox .lg')).toMatch(
          /^Events per country 1–2 3–9 10–29 30–99 100\+ military/,
        );
        // What is under each fixture place, in the frame: the event's mark (its <title> names it).
        // (Not Ottawa: the refresh test adds a second event there, so its mark names the newer.)
        for (const event of [
          FIXTURE.kyivStrike,
          FIXTURE.lyonHospital,
          FIXTURE.mumbaiFlood,
          FIXTURE.bogotaCartel,
        ]) {
          const [x, y] = project(event.lat, event.lng);
          const hit = await frame.evaluate(
            ([vx, vy]) => {
              const svg = document.getElementById('wmap')!.getBoundingClientRect();
              const at = document.elementFromPoint(
                svg.left + (vx! * svg.width) / 960,
                svg.top + (vy! * svg.width) / 960,
              );
              return at?.closest('circle')?.querySelector('title')?.textContent ?? at?.tagName ?? null;
            },
            [x, y],
          );
          expect(hit).toContain(event.title);
        }
        // Open sea is the sea; a country with no event is land.
        const [seaX, seaY] = project(-30, -20);
        const [landX, landY] = project(64, 100);
        const classes = await frame.evaluate(
          (points) =>
            points.map(([vx, vy]) => {
              const svg = document.getElementById('wmap')!.getBoundingClientRect();
              const at = document.elementFromPoint(
                svg.left + (vx! * svg.width) / 960,
                svg.top + (vy! * svg.width) / 960,
              );
              return at?.getAttribute('class');
            }),
          [
            [seaX, seaY],
            [landX, landY],
          ],
        );
        expect(classes).toEqual(['sea', 's0']);
        const fill = await frame.$eval('#wmap .sea', (node) => getComputedStyle(node).fill);
        expect(fill).toBe(theme === 'dark' ? 'rgb(17, 21, 27)' : 'rgb(244, 247, 250)');
        expect(problems).toEqual([]);
        expect(requests.every((url) => url.startsWith(hostOrigin) || url.startsWith(widgetOrigin))).toBe(
          true,
        );
        const shot = await (await page.$('#widget'))!.screenshot({
          path: `${OUTPUT}/embed-map-${theme}.png`,
        });
        mkdirSync('docs/images', { recursive: true });
        writeFileSync(`docs/images/widget-map-${theme}.png`, shot);
        expect(shot.length).toBeGreaterThan(20_000); // a blank frame compresses to a few KB
      } finally {
        await context.close();
      }
    },
  );

  it("shows a mark's event on hover and on keyboard focus, and opens it in a new tab", async () => {
    const { context, frame, problems } = await visit('view=map&hours=168', { ready: '#mapbox svg' });
    // The source is another origin: answered here, so the test never leaves loopback.
    await context.route('https://wire.example.com/**', (route) => route.fulfill({ body: 'the article' }));
    try {
      const link = `#wmap a[href="${FIXTURE.kyivStrike.source_url}"]`;
      expect(await frame.getAttribute(link, 'rel')).toBe('noopener noreferrer');
      await frame.hover(`${link} circle`, { timeout: 3000 });
      await frame.waitForSelector('#tip:not([hidden])', { timeout: 3000 });
      const shown = await frame.textContent('#tip');
      expect(shown).toContain(FIXTURE.kyivStrike.title);
      expect(shown).toContain('score 9.2 · 1 source · 20 Nov 06:00 UTC');
      await frame.hover('header');
      await frame.waitForSelector('#tip', { state: 'hidden' });
      await frame.focus(`#wmap a[href="${FIXTURE.lyonHospital.source_url}"]`);
      await frame.waitForSelector('#tip:not([hidden])');
      expect(await frame.textContent('#tip')).toContain(FIXTURE.lyonHospital.title);
      const [opened] = await Promise.all([context.waitForEvent('page'), frame.click(`${link} circle`)]);
      await opened.waitForLoadState();
      expect(opened.url()).toBe(FIXTURE.kyivStrike.source_url);
      expect(await opened.evaluate(() => window.opener)).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
