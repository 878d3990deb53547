import { runCycle } from './sources/cycle';
import { ensureCatalogue } from './sources/poll-state';
import { workerDeps, type WorkerEnv } from './worker-deps';

/**
 * The cron Worker: every 5 minutes (wrangler.toml `[env.cron]`), one live-data cycle: polls
 * the sources that are due, then one dispatcher pass, so new signals go out in the same run. With
 * LIVE_SOURCES a fresh database gets the built-in catalogue first, so a deployment polls with
 * nothing else set up.
 */
export default {
  async scheduled(controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
    const { deps, database } = workerDeps(env, ctx);
    try {
      // LIVE_SOURCES (set in wrangler.toml): a fresh database gets the built-in catalogue.
      const added = deps.config.LIVE_SOURCES ? await ensureCatalogue(deps.db) : 0;
      if (added > 0) deps.log.info('source catalogue added', { sources: added });
      const { polls, ...summary } = await runCycle(deps);
      deps.log.info('source cycle', { cron: controller.cron, ...summary, polls: polls.length });
      for (const poll of polls) deps.log.info('source poll', { ...poll });
      // The stream hook on Workers: what the polls committed goes out to open streams now.
      deps.stream?.changed();
    } finally {
      ctx.waitUntil(database.close());
    }
  },
} satisfies ExportedHandler<WorkerEnv>;
