import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './deps';
import { access } from './http/auth';
import { createRouter } from './http/openapi';
import { ApiError, invalidRequest, problemResponse } from './http/problem';
import { allowedMethods } from './http/methods';
import { observe } from './http/observe';
import { securityHeaders } from './http/security';
import { rejectUnknownParams } from './http/unknown-params';
import { isStatementTimeout, isUnavailable, isUntranslatableText } from './http/unavailable';
import { isDatetimeError } from './signals/timestamps';
import { mcpRoutes } from './mcp/route';
import { adminRoutes } from './routes/admin';
import { adminWebhookRoutes } from './routes/admin-webhooks';
import { adminSourceRoutes } from './routes/admin-sources';
import { docsRoutes, errorsRoutes } from './routes/docs';
import { briefRoutes } from './routes/brief';
import { clusterRoutes } from './routes/clusters';
import { crisisRoutes } from './routes/crises';
import { embedRoutes } from './routes/embed';
import { mapRoutes } from './routes/map';
import { entityRoutes } from './routes/entity';
import { eventRoutes } from './routes/events';
import { exportRoutes } from './routes/export';
import { feedRoutes } from './routes/feed';
import { keyRoutes } from './routes/keys';
import { signalRoutes } from './routes/signals';
import { snapshotRoutes } from './routes/snapshots';
import { sourceRoutes } from './routes/sources';
import { statsRoutes } from './routes/stats';
import { streamRoutes } from './routes/stream';
import { systemRoutes } from './routes/system';
import { trendingRoutes } from './routes/trending';
import { webhookRoutes } from './routes/webhooks';

const OPENAPI_PATH = '/api/v1/openapi.json';

/** Where a key goes on the docs page, and where one comes from. */
const KEY_HINT =
  'paste your API key (`sig_…`) into the **Value** field under *Authentication* (scheme `ApiKey`, sent as `X-Api-Key`), then use *Test Request*. `npm start` prints a demo key; `POST /api/v1/keys` with `{"email": "you@example.org"}` issues a free one.';

const OPENAPI_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'Signal Intelligence API',
    version: '1.0.0',
    description:
      'Scored intelligence signals (military, cyber, economic, disaster, political, criminal, health, supply chain) with filters, analytics, feeds, exports and signed webhooks. Errors are `application/problem+json` with a stable `code`, each explained on the [errors page](/api/v1/docs/errors).\n\nWhere the events of the last 7 days are ([`GET /api/v1/map.svg`](#tag/embed/get/api/v1/map.svg), public):\n\n![A world map of the last 7 days: countries shaded by events, a mark per event](/api/v1/map.svg?days=7&width=720)\n\n**Trying requests on this page:** ' +
      KEY_HINT,
  },
  servers: [{ url: '/' }],
};

/** Turns anything thrown into problem+json; unknown errors are logged and answered generically. */
function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) return problemResponse(c, error);
  if (error instanceof HTTPException) {
    // Hono's own validators throw these, e.g. for a body that is not JSON.
    const problem =
      error.status === 413
        ? new ApiError(413, 'payload_too_large', error.message)
        : error.status === 415
          ? new ApiError(415, 'unsupported_media_type', 'Send the body as application/json.')
          : new ApiError(
              400,
              /json/i.test(error.message) ? 'invalid_json' : 'invalid_request',
              error.message,
            );
    return problemResponse(c, problem);
  }
  if (isUntranslatableText(error)) {
    // Postgres text cannot hold NUL (U+0000); any field that carried one is the caller's error.
    return problemResponse(
      c,
      invalidRequest([{ path: 'body', message: 'text must not contain NUL (U+0000) characters' }]),
    );
  }
  const log = c.env?.deps?.log;
  if (isDatetimeError(error)) {
    // Every date is checked before SQL (src/signals/timestamps.ts); one that still slipped past
    // is the caller's value, so a 400, never a 500. Logged, since it means a check is missing.
    log?.warn('date/time refused by the database', { path: c.req.path, error: String(error) });
    return problemResponse(
      c,
      invalidRequest(
        [{ path: 'request', message: 'a date or time is outside the accepted range or not a calendar date' }],
        'A date or time in the request is outside the accepted range (1900 to 9999) or not a calendar date.',
      ),
    );
  }
  if (isStatementTimeout(error)) {
    log?.warn('statement timeout', { path: c.req.path });
    return problemResponse(
      c,
      new ApiError(
        503,
        'service_unavailable',
        'The query took longer than the database allows; retry shortly, or narrow the filters.',
        undefined,
        { 'Retry-After': '5' },
      ),
    );
  }
  if (isUnavailable(error)) {
    log?.warn('dependency unavailable', { path: c.req.path, error: String(error) });
    return problemResponse(
      c,
      new ApiError(
        503,
        'service_unavailable',
        'A backing service is unreachable; retry shortly.',
        undefined,
        {
          'Retry-After': '5',
        },
      ),
    );
  }
  log?.error('unhandled error', { path: c.req.path, error: String(error), stack: error.stack });
  return problemResponse(c, new ApiError(500, 'internal_error', 'Something went wrong on our side.'));
}

/**
 * Builds the whole API. Every runtime (API Worker, Node server, tests) passes its
 * dependencies per request as `env.deps`, so one app serves them all.
 */
export function createApp() {
  const app = createRouter();

  app.use('*', observe);
  app.use('*', securityHeaders);

  app.route('/', systemRoutes);
  app.route('/', signalRoutes);
  app.route('/', streamRoutes);
  app.route('/', eventRoutes);
  app.route('/', keyRoutes);
  app.route('/', adminRoutes);
  app.route('/', webhookRoutes);
  app.route('/', adminWebhookRoutes);
  app.route('/', adminSourceRoutes);
  app.route('/', snapshotRoutes);
  app.route('/', sourceRoutes);
  app.route('/', trendingRoutes);
  app.route('/', crisisRoutes);
  app.route('/', statsRoutes);
  app.route('/', clusterRoutes);
  app.route('/', entityRoutes);
  app.route('/', briefRoutes);
  app.route('/', feedRoutes);
  app.route('/', exportRoutes);
  app.route('/', embedRoutes);
  app.route('/', mapRoutes);
  app.route(
    '/',
    mcpRoutes(app, () => app.getOpenAPI31Document(OPENAPI_INFO)),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: KEY_HINT,
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token (ADMIN_TOKEN).',
  });
  // Public reads, rate-limited like the others.
  app.use(OPENAPI_PATH, access('public'), rejectUnknownParams([]));
  app.doc31(OPENAPI_PATH, OPENAPI_INFO);
  app.route(
    '/',
    docsRoutes(OPENAPI_PATH, () => app.getOpenAPI31Document(OPENAPI_INFO)),
  );
  app.route('/', errorsRoutes());

  const allowed = allowedMethods(app);
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    if (allow.length > 0) {
      const detail = `${c.req.path} answers ${allow.join(', ')}, not ${c.req.method}.`;
      return problemResponse(
        c,
        new ApiError(405, 'method_not_allowed', detail, undefined, { Allow: allow.join(', ') }),
      );
    }
    return problemResponse(c, new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}.`));
  });
  app.onError(handleError);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** The OpenAPI 3.1 document the app serves at `OPENAPI_PATH`. */
export const openApiDocument = (app: App) => app.getOpenAPI31Document(OPENAPI_INFO);
