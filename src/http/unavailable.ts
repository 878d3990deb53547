const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);

type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown };

/** The error and up to four of its causes: drivers wrap the Postgres error they got. */
function* causes(error: unknown): Generator<ErrorLike> {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; depth++) {
    yield e;
    e = e.cause as ErrorLike | undefined;
  }
}

// `timeout exceeded when trying to connect`: every pooled connection stayed busy past the
// checkout timeout (overload). `is not queryable`: the statement (often the ROLLBACK after a
// failed one) was sent on a client whose connection the server had already ended.
const UNREACHABLE_MESSAGE =
  /connection terminated|connect ECONNREFUSED|PGlite is closed|socket hang up|WebSocket|timeout exceeded when trying to connect|is not queryable/i;

/** True for errors that mean the database (or another backing service) is unreachable. */
export function isUnavailable(error: unknown): boolean {
  for (const { code, message } of causes(error)) {
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/** True for Postgres refusing text it cannot store, such as a NUL character (22021, 22P05). */
export function isUntranslatableText(error: unknown): boolean {
  for (const { code } of causes(error)) if (code === '22021' || code === '22P05') return true;
  return false;
}

/**
 * True for a statement Postgres cancelled (57014 query_canceled): it ran past
 * `statement_timeout`. The connection stays usable; the request is answered 503.
 */
export function isStatementTimeout(error: unknown): boolean {
  for (const { code } of causes(error)) if (code === '57014') return true;
  return false;
}
