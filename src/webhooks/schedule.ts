import type { Deps } from '../deps';
import { dispatchWebhooks } from './dispatch';

const DISPATCH_INTERVAL_MS = 5 * 60_000;

/**
 * The Node server's stand-in for the cron: a dispatcher pass every 5 minutes. A pass that is
 * still running when the next is due is not overlapped (runs are safe to overlap, but pointless).
 */
export function startDispatchTimer(deps: Deps, intervalMs = DISPATCH_INTERVAL_MS): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = dispatchWebhooks(deps)
      .then((summary) => {
        if (summary.deliveries > 0) deps.log.info('webhook dispatch', { ...summary });
      })
      .catch((error: unknown) => deps.log.error('webhook dispatch failed', { error: String(error) }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
