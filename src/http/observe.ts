import type { MiddlewareHandler } from 'hono';
import { databaseView, type Database } from '../db/client';
import type { AppEnv, Deps } from '../deps';
import type { Logger } from '../log';
import { requestStore, STORE_TIMEOUT_MS } from '../store/deadline';
import { plainHeaders } from './response-headers';

/** Milliseconds spent waiting on each backing service during one request. */
interface Timing {
  db: number;
  store: number;
}

const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's `X-Request-Id` when it is well formed (8–128 of `A-Z a-z 0-9 . _ : -`), else a new UUID. */
const requestIdFor = (sent: string | undefined): string =>
  sent && WELL_FORMED_ID.test(sent) ? sent : crypto.randomUUID();

async function timed<T>(timing: Timing, part: keyof Timing, work: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work;
  } finally {
    timing[part] += performance.now() - started;
  }
}

interface DriverClient {
  query(...args: unknown[]): Promise<unknown>;
}
interface SessionInternals {
  session: { transaction(...args: unknown[]): Promise<unknown> };
  transaction(...args: unknown[]): Promise<unknown>;
}

/** What every request's view of one shared database has in common, made once per database. */
interface ViewTemplate {
  db: Database;
  session: object;
}
const templates = new WeakMap<Database, ViewTemplate>();

function viewTemplate(db: Database): ViewTemplate {
  let template = templates.get(db);
  if (!template) {
    const shared = db as unknown as SessionInternals;
    template = {
      db: databaseView(db, { transaction: { value: shared.transaction.bind(db) } }),
      session: Object.create(shared.session, {
        transaction: { value: shared.session.transaction.bind(shared.session) },
      }) as object,
    };
    templates.set(db, template);
  }
  return template;
}

/**
 * `db` for one request, timing every statement that drizzle or `runStatement` sends. Only the
 * driver client's `query` is wrapped (the one method drizzle's sessions call); the wrapper
 * inherits everything else from the shared database, and transactions run on the shared
 * session (their time counts in the total, not in `db`). The parts that do not depend on the
 * request (the bound transaction methods) are made once per database: a request adds only its
 * client and two small objects, since garbage is much of the app's CPU on a hot read.
 */
function timedDatabase(db: Database, timing: Timing): Database {
  const shared = db as unknown as { $client: DriverClient };
  const template = viewTemplate(db);
  const client: DriverClient = {
    query: (...args) => timed(timing, 'db', shared.$client.query(...args)),
  };
  const session = Object.create(template.session) as { client: DriverClient };
  session.client = client;
  const view = Object.create(template.db) as { session: unknown; $client: DriverClient };
  view.session = session;
  view.$client = client;
  return view as unknown as Database;
}

/** `log` with the request id on every line. */
function loggerWith(log: Logger, fields: Record<string, unknown>): Logger {
  return {
    info: (message, more) => log.info(message, { ...fields, ...more }),
    warn: (message, more) => log.warn(message, { ...fields, ...more }),
    error: (message, more) => log.error(message, { ...fields, ...more }),
  };
}

/** What one request's `deps` holds of its own; the rest it inherits from the shared `deps`. */
interface RequestDeps extends Deps {
  requestId: string;
  logger: Logger | undefined;
}

/** Per shared `deps`, the prototype of its requests' views: the shared deps plus a lazy `log`. */
const requestPrototypes = new WeakMap<Deps, object>();

function requestPrototype(deps: Deps): object {
  let prototype = requestPrototypes.get(deps);
  if (!prototype) {
    prototype = Object.create(deps, {
      // Made on first use: most requests never log, and it is one more object every request
      // would otherwise allocate for nothing.
      log: {
        get(this: RequestDeps) {
          return (this.logger ??= loggerWith(deps.log, { request_id: this.requestId }));
        },
      },
    }) as object;
    requestPrototypes.set(deps, prototype);
  }
  return prototype;
}

/**
 * One request's `deps`: its own database and store views and logger, everything else inherited
 * from the shared `deps`. Not a copy with a `log` getter: an object literal with an accessor
 * is kept in V8's dictionary mode, so each of the request's many `deps.x` reads was a hash
 * lookup, and building it copied every property. An object made from a prototype keeps one
 * shape, and costs four stores.
 */
function requestDeps(deps: Deps, db: Database, store: Deps['store'], requestId: string): Deps {
  const view = Object.create(requestPrototype(deps)) as RequestDeps;
  view.db = db;
  view.store = store;
  view.requestId = requestId;
  view.logger = undefined;
  return view;
}

const ms = (value: number) => value.toFixed(1);

/** The `Server-Timing` value: database, store and whole-request milliseconds. */
const serverTiming = (timing: Timing, total: number) =>
  `db;dur=${ms(timing.db)};desc="database", store;dur=${ms(timing.store)};desc="rate limits and cache", total;dur=${ms(total)}`;

/**
 * Gives every request an id (`X-Request-Id`, also on each of its log lines and in 5xx problem
 * bodies) and answers with `Server-Timing`. The request gets its own view of `deps` whose
 * database, store and logger record into it. The request's headers are kept in a plain record
 * (`plainHeaders`), and the timing header is written as the response is built rather than
 * after it: a header added to a finished response makes Hono rebuild it around a stream (see
 * `securityHeaders`).
 */
export const observe: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const requestId = requestIdFor(c.req.header('x-request-id'));
  const timing: Timing = { db: 0, store: 0 };
  const { deps } = c.env;
  c.env = {
    ...c.env,
    deps: requestDeps(
      deps,
      timedDatabase(deps.db, timing),
      // One view for the deadline and the timing: a view of a view cost each call a second
      // proxy trap and closure.
      requestStore(deps.store, STORE_TIMEOUT_MS, (call) => timed(timing, 'store', call)),
      requestId,
    ),
  };
  c.set('requestId', requestId);
  plainHeaders(c, (headers) => {
    headers['server-timing'] = serverTiming(timing, performance.now() - started);
  });
  c.header('X-Request-Id', requestId);
  await next();
};
