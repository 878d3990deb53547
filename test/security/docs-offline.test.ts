import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ASSETS_DIR, buildDocsAssets } from '../../src/docs-assets';
import { DOCS_SCRIPT_PATH } from '../../src/routes/docs';
import { memoryStore } from '../../src/store/memory';
import { withTestApp } from '../support/harness';

/** A fixed clock far from any window edge, so the counts below are exact. */
const FROZEN = Date.UTC(2026, 0, 1, 12, 30, 30);

describe('the docs page without internet', () => {
  const app = withTestApp({ store: memoryStore(() => FROZEN) });

  it('loads only same-origin script, allowed by its CSP, and no inline code', async () => {
    const page = await app.fetch('/api/v1/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const sources = scripts.map(([, attributes]) => /\bsrc="([^"]*)"/.exec(attributes!)?.[1]).filter(Boolean);
    expect(sources).toEqual([DOCS_SCRIPT_PATH]);
    for (const [, , body] of scripts) expect(body!.trim()).toBe('');
    expect(html).not.toMatch(/https?:\/\//);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it('serves that script itself: the pinned bundle from node_modules, with a long cache', async () => {
    const res = await app.fetch(DOCS_SCRIPT_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1])).toBeGreaterThanOrEqual(
      86_400,
    );
    const body = await res.text();
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body).toContain('api-reference');
  });

  it('is rate-limited like every public read, together with the OpenAPI document', async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 30; i++) {
      answers.push(await app.fetch('/api/v1/docs'));
      answers.push(await app.fetch('/api/v1/openapi.json'));
    }
    // The page above took 1 of the IP's 60 (the script is a static file, as on Workers).
    const allowed = answers.slice(0, 59);
    expect(allowed.map((r) => r.status)).toEqual(Array(59).fill(200));
    expect(allowed.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(
      Array.from({ length: 59 }, (_, i) => String(58 - i)),
    );
    const refused = answers[59]!;
    expect(refused.status).toBe(429);
    expect((await refused.json<{ code: string }>()).code).toBe('rate_limited');
  });
});

describe('the Worker build of the docs script', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the same bundle into the assets directory wrangler.toml serves, with its cache rule', () => {
    buildDocsAssets(dir);
    const copied = readFileSync(join(dir, DOCS_SCRIPT_PATH));
    expect(copied.length).toBeGreaterThan(1_000_000);
    expect(readFileSync(join(dir, '_headers'), 'utf8')).toMatch(
      new RegExp(`^${DOCS_SCRIPT_PATH}\\n\\s+Cache-Control: public, max-age=\\d+`),
    );
    const toml = readFileSync('wrangler.toml', 'utf8');
    expect(toml).toMatch(new RegExp(`\\[assets\\]\\s*\\ndirectory = "\\./${ASSETS_DIR}"`));
  });
});
