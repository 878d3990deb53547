import { dispatchWebhooks, type DispatchOptions } from '../webhooks/dispatch';
import type { DispatchSummary } from '../webhooks/schemas';
import { dueSources } from './poll-state';
import { pollSource, type IngestSourceItems, type PollDeps, type PollOutcome } from './poller';
import { sourceByName } from './rows';

const MINUTE = 60_000;
/** The cron runs every 5 minutes: one run polls and dispatches within 4. */
const CYCLE_BUDGET_MS = 4 * MINUTE;
/** Sources polled per run at most (Workers cap subrequests per invocation). */
const MAX_SOURCES_PER_RUN = 25;
/** The dispatcher's settling margin: signals younger than this are left for the next pass. */
const SETTLE_MS = 1_000;

export interface CycleOptions {
  /** The whole run: polls stop starting after half of it, the dispatcher gets the rest. */
  budgetMs?: number;
  maxSources?: number;
  /** Poll only this source, due or not (`sources poll --source NAME`). */
  source?: string;
  /** Per poll (default 10 s). */
  timeoutMs?: number;
  maxAgeHours?: number;
  ingest?: IngestSourceItems;
  dispatch?: Omit<DispatchOptions, 'budgetMs'>;
}

export interface CycleSummary {
  /** One outcome per source polled, in order. */
  polls: PollOutcome[];
  /** Due sources left for the next run (budget or per-run cap). */
  deferred: number;
  accepted: number;
  updated: number;
  failed: number;
  webhooks: DispatchSummary;
}

export class UnknownSourceError extends Error {
  constructor(readonly source: string) {
    super(`no source named ${JSON.stringify(source)}`);
    this.name = 'UnknownSourceError';
  }
}

/**
 * One run of live data, as the cron Worker, the Node timer and the CLI do it: polls the due
 * sources one after another (each failure stays on its source), then runs the webhook
 * dispatcher, so signals a poll brought go out in the same run.
 */
export async function runCycle(deps: PollDeps, options: CycleOptions = {}): Promise<CycleSummary> {
  const started = Date.now();
  const budgetMs = options.budgetMs ?? CYCLE_BUDGET_MS;
  const maxSources = options.maxSources ?? MAX_SOURCES_PER_RUN;
  let queue;
  if (options.source) {
    const one = await sourceByName(deps.db, options.source);
    if (!one) throw new UnknownSourceError(options.source);
    queue = [one];
  } else {
    queue = await dueSources(deps.db, deps.now(), maxSources + 1);
  }
  const summary: CycleSummary = {
    polls: [],
    deferred: 0,
    accepted: 0,
    updated: 0,
    failed: 0,
    webhooks: { webhooks: 0, deliveries: 0, succeeded: 0, failed: 0, signals: 0, paused: 0 },
  };
  let lastIngestAt = 0;
  for (const [index, source] of queue.entries()) {
    if (index >= maxSources || Date.now() - started >= budgetMs / 2) {
      summary.deferred = queue.length - index;
      break;
    }
    let outcome: PollOutcome;
    try {
      outcome = await pollSource(
        deps,
        source,
        { force: Boolean(options.source), timeoutMs: options.timeoutMs, maxAgeHours: options.maxAgeHours },
        options.ingest,
      );
    } catch (error) {
      // Only the database failing can land here (a poll records its own failures).
      deps.log.error('source poll failed', { source: source.name, error: String(error) });
      outcome = {
        source: source.name,
        connector: source.connector ?? '',
        status: 'failed',
        error: 'internal_error',
        failures: source.consecutiveFailures,
        next_poll_at: null,
      };
    }
    summary.polls.push(outcome);
    if (outcome.status === 'failed') summary.failed += 1;
    if (outcome.status === 'ok') {
      summary.accepted += outcome.accepted;
      summary.updated += outcome.updated;
      if (outcome.accepted > 0) lastIngestAt = Date.now();
    }
  }
  // New signals become visible to the dispatcher once older than its settling margin.
  const settle = lastIngestAt + SETTLE_MS + 50 - Date.now();
  if (lastIngestAt && settle > 0 && Date.now() - started + settle < budgetMs) {
    await new Promise((resolve) => setTimeout(resolve, settle));
  }
  summary.webhooks = await dispatchWebhooks(deps, {
    settleMs: SETTLE_MS,
    ...options.dispatch,
    budgetMs: Math.max(budgetMs - (Date.now() - started), 0),
  });
  return summary;
}

/** One line per poll for a console: what each source brought. */
export function describeCycle(summary: CycleSummary): string[] {
  const lines = summary.polls.map((poll) => {
    switch (poll.status) {
      case 'ok': {
        const counted = poll.accepted + poll.updated + poll.duplicates + poll.rejected;
        const extra = [
          poll.rejected ? `, ${poll.rejected} rejected` : '',
          poll.items > counted ? `, ${poll.items - counted} older than the poll window` : '',
        ].join('');
        return `${poll.source}: ${poll.items} items, ${poll.accepted} new, ${poll.updated} updated, ${poll.duplicates} known${extra}`;
      }
      case 'not_modified':
        return `${poll.source}: not modified`;
      case 'busy':
        return `${poll.source}: being polled by another run`;
      case 'failed':
        return `${poll.source}: failed (${poll.error}), failure ${poll.failures}, next poll ${poll.next_poll_at}`;
    }
  });
  if (summary.deferred > 0) lines.push(`${summary.deferred} due sources left for the next run`);
  if (summary.webhooks.deliveries > 0) {
    lines.push(
      `webhooks: ${summary.webhooks.deliveries} deliveries, ${summary.webhooks.signals} signals, ${summary.webhooks.failed} failed`,
    );
  }
  return lines;
}

/**
 * The Node server's stand-in for the cron when LIVE_SOURCES is on: a cycle at once, then one
 * every `intervalMs` (due sources only, so each feed keeps its own interval). A run still going
 * when the next is due is not overlapped.
 */
export function startCycleTimer(
  deps: PollDeps,
  options: { intervalMs?: number; onCycle?: (summary: CycleSummary) => void } = {},
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = runCycle(deps)
      .then((summary) => options.onCycle?.(summary))
      .catch((error: unknown) => deps.log.error('source cycle failed', { error: String(error) }))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, options.intervalMs ?? MINUTE);
  timer.unref?.();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
