import { neonConfig } from '@neondatabase/serverless';
import { dispatchWebhooks } from './webhooks/dispatch';
import { workerDeps, type WorkerEnv } from './worker-deps';

/**
 * `NEON_WS_PROXY` (`host:port/path`, plain ws://) points the Neon driver at a self-hosted
 * WebSocket proxy in front of an ordinary Postgres: local runs of this Worker and its workerd
 * test. Production (Neon itself) leaves it unset.
 */
function useWsProxy(env: WorkerEnv): void {
  const proxy = env.NEON_WS_PROXY;
  if (typeof proxy !== 'string' || proxy === '') return;
  neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** The webhook Worker: every 5 minutes (wrangler.toml `[env.webhooks]`), one dispatcher pass. */
export default {
  async scheduled(controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
    useWsProxy(env);
    const { deps, database } = workerDeps(env, ctx);
    try {
      const summary = await dispatchWebhooks(deps);
      deps.log.info('webhook dispatch', { cron: controller.cron, ...summary });
    } finally {
      ctx.waitUntil(database.close());
    }
  },
} satisfies ExportedHandler<WorkerEnv>;
