import { createApp } from './app';
import { consoleLogger } from './deps';
import { ApiError } from './http/problem';
import { workerDeps, type WorkerEnv } from './worker-deps';

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

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    let built: ReturnType<typeof workerDeps>;
    try {
      built = workerDeps(env, ctx);
    } catch (error) {
      return bootFailure(error);
    }
    const { deps, database } = built;
    try {
      return await app.fetch(request, { deps }, ctx);
    } finally {
      ctx.waitUntil(database.close());
    }
  },
} satisfies ExportedHandler<WorkerEnv>;
