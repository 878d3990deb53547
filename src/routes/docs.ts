import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps';
import { access } from '../http/auth';
import { createRouter } from '../http/openapi';
import { ERRORS_DOC_PATH, PROBLEMS } from '../http/problem';
import { rejectUnknownParams } from '../http/unknown-params';

/**
 * The interactive docs page, working with no internet and no third-party script: the API
 * reference UI (@scalar/api-reference's standalone bundle, pinned by package-lock) is served by
 * the service itself at DOCS_SCRIPT_PATH — by the Node server from node_modules
 * (src/node-runtime.ts), and on Workers as a static asset copied into dist/assets at build
 * (src/docs-assets.ts). The page is configured by data attributes, so it needs no inline script
 * and its CSP allows scripts from its own origin only.
 */
const DOCS_PATH = '/api/v1/docs';
export const DOCS_SCRIPT_PATH = '/api/v1/docs/scalar.js';
/** Where the bundle is in @scalar/api-reference, relative to its dist/index.js. */
export const SCALAR_STANDALONE = 'browser/standalone.js';
/** The script changes only with the package version: a day's cache is safe. */
export const DOCS_SCRIPT_CACHE = 'public, max-age=86400';

const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function docsHtml(openApiPath: string): string {
  // The key scheme is preselected, so "Test request" sends X-Api-Key once a key is pasted,
  // instead of opening on "No authentication selected".
  const configuration = JSON.stringify({
    url: openApiPath,
    withDefaultFonts: false,
    authentication: { preferredSecurityScheme: 'ApiKey' },
  }).replaceAll('"', '&quot;');
  return `<!doctype html>
<html lang="en">
  <head>
    <title>Signal Intelligence API</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="${openApiPath}" data-configuration="${configuration}"></script>
    <script src="${DOCS_SCRIPT_PATH}"></script>
  </body>
</html>
`;
}

const ERRORS_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Escapes `text` and renders its `code spans` as <code>. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/**
 * The errors page every problem's `type` links to: one section per `code`, anchored by the code,
 * written from the code table itself (PROBLEMS), so it can neither miss a code nor need a file
 * a Worker cannot read.
 */
function errorsHtml(): string {
  const sections = Object.entries(PROBLEMS)
    .map(
      ([code, { status, title, when }]) => `    <section id="${code}">
      <h2><code>${code}</code> <small>${status}</small></h2>
      <p><strong>${escapeHtml(title)}.</strong> ${inline(when)}</p>
    </section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
  <head>
    <title>Errors · Signal Intelligence API</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}section:target{background:#fff6d5}small{color:#555}</style>
  </head>
  <body>
    <h1>Errors</h1>
    <p>Every error is <code>application/problem+json</code> (RFC 9457): <code>type</code> (a link to its section below), <code>title</code>, <code>status</code>, <code>detail</code>, a stable machine <code>code</code>, and for invalid input <code>errors</code>: every offending field as <code>{ path, message }</code>. Branch on <code>code</code>, never on <code>detail</code>. <a href="${DOCS_PATH}">API reference</a>.</p>
${sections}
  </body>
</html>
`;
}

/** `GET /api/v1/docs/errors`: the errors page, public and rate-limited like the reference page. */
export function errorsRoutes() {
  const page = errorsHtml();
  const handler: MiddlewareHandler<AppEnv> = async (c) => {
    c.header('Content-Security-Policy', ERRORS_CSP);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.html(page, 200);
  };
  return createRouter().get(ERRORS_DOC_PATH, access('public'), rejectUnknownParams([]), handler);
}

/**
 * `GET /api/v1/docs`: the page, or the OpenAPI document itself for `Accept: application/json`.
 * Rate-limited like every public read (`access('public')`).
 */
export function docsRoutes(openApiPath: string, document: () => unknown) {
  const page = docsHtml(openApiPath);
  const handler: MiddlewareHandler<AppEnv> = async (c) => {
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(document(), 200);
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('Cache-Control', 'public, max-age=300');
    return c.html(page, 200);
  };
  return createRouter().get(DOCS_PATH, access('public'), rejectUnknownParams([]), handler);
}
