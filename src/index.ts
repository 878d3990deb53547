import { createApp } from './app';
import { workerDeps, type WorkerEnv } from './worker-deps';

const app = createApp();

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const { deps, database } = workerDeps(env, ctx);
    try {
      return await app.fetch(request, { deps }, ctx);
    } finally {
      ctx.waitUntil(database.close());
    }
  },
} satisfies ExportedHandler<WorkerEnv>;
