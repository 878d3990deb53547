import { dispatchWebhooks } from './webhooks/dispatch';
import { workerDeps, type WorkerEnv } from './worker-deps';

/** The webhook Worker: every 5 minutes (wrangler.toml `[env.webhooks]`), one dispatcher pass. */
export default {
  async scheduled(controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
    const { deps, database } = workerDeps(env, ctx);
    try {
      const summary = await dispatchWebhooks(deps);
      deps.log.info('webhook dispatch', { cron: controller.cron, ...summary });
    } finally {
      ctx.waitUntil(database.close());
    }
  },
} satisfies ExportedHandler<WorkerEnv>;
