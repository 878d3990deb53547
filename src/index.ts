import { createApp } from './app';
import type { DatabaseHandle } from './db/client';
import { consoleLogger, type Deps } from './deps';
import { ApiError } from './http/problem';
import { workerDeps, type WorkerEnv } from './worker-deps';

export { StreamHubObject } from './stream/durable-object';

const app = createApp();

/**
 * The answer when the Worker cannot even build its dependencies (DATABASE_URL missing, a bad
 * binding): problem+json like every other error, with the reason in the log, not the response.
 */
function bootFailure(error: unknown): Response {
  consoleLogger('error').error('api worker cannot start', {
    error: error instanceof Error ? error.message : String(error),
  });
  const problem = new ApiError(
    503,
    'service_unavailable',
    'The service is not configured correctly and cannot answer right now. Retry later.',
  );
  return new Response(JSON.stringify(problem.toJSON()), {
    status: 503,
    headers: {
      'Content-Type': 'application/problem+json; charset=utf-8',
      'Cache-Control': 'no-store',
      'Retry-After': '60',
    },
  });
}

/**
 * The stream hook on Workers: an admin write that succeeded (signals ingested, a feed document
 * pushed, a source changed) wakes the stream hub, which reads what committed. On Node the
 * database's NOTIFY trigger does this for every writer.
 */
function wakeStreamsAfterAdminWrite(request: Request, response: Response, deps: Deps): void {
  if (
    request.method === 'POST' &&
    response.ok &&
    new URL(request.url).pathname.startsWith('/api/v1/admin/')
  ) {
    deps.stream?.changed();
  }
}

/**
 * Closes the invocation's database once the response is done with it: at once for an answer,
 * when the body ends for a live stream (which reads while it catches up and for `distinct=event`).
 */
function closeWhenDone(response: Response, database: DatabaseHandle, ctx: ExecutionContext): Response {
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
  if (!streaming || !response.body) {
    ctx.waitUntil(database.close());
    return response;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  ctx.waitUntil(
    response.body
      .pipeTo(writable)
      .catch(() => {})
      .finally(() => database.close()),
  );
  return new Response(readable, response);
}

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    let built: ReturnType<typeof workerDeps>;
    try {
      built = workerDeps(env, ctx);
    } catch (error) {
      return bootFailure(error);
    }
    const { deps, database } = built;
    let response: Response;
    try {
      response = await app.fetch(request, { deps }, ctx);
    } catch (error) {
      ctx.waitUntil(database.close());
      throw error;
    }
    wakeStreamsAfterAdminWrite(request, response, deps);
    return closeWhenDone(response, database, ctx);
  },
} satisfies ExportedHandler<WorkerEnv>;
