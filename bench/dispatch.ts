/**
 * The dispatcher budget: 1,000 active webhooks with new signals, delivered to a local
 * receiver within one 5-minute run, with one matching query per batch (not per signal).
 *
 * On the bench database: 1,000 signed webhooks (200 keys × 5) with three kinds of filter, then
 * 150 new signals, then one `dispatchWebhooks` pass as the cron runs it. Counts what the
 * receiver got and the signal-matching queries the driver ran, then removes the accounts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inArray } from 'drizzle-orm';
import { loadConfig } from '../src/config';
import type { Database } from '../src/db/client';
import { accounts } from '../src/db/schema';
import { consoleLogger } from '../src/deps';
import { ingestSignals } from '../src/ingest/pipeline';
import { issueKeyForEmail } from '../src/keys/service';
import { LAYERS } from '../src/vocab';
import { generateEncryptionKey } from '../src/webhooks/crypto';
import { dispatchWebhooks } from '../src/webhooks/dispatch';
import { createWebhook } from '../src/webhooks/service';

const WEBHOOKS = 1_000;
const PER_KEY = 5;
const NEW_SIGNALS = 150;
const RUN_BUDGET_MS = 5 * 60_000;

export interface DispatchFigures {
  webhooks: number;
  seconds: number;
  deliveries: number;
  succeeded: number;
  webhooksReached: number;
  signalsDelivered: number;
  matchingQueries: number;
  ok: boolean;
}

/** Counts the driver-level queries whose text selects signals after a webhook's cursor. */
function countMatchingQueries(db: Database) {
  const client = (db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
  const original = client.query;
  let matching = 0;
  client.query = (...args: unknown[]) => {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first.text ?? '');
    if (/from "signals"/.test(text) && /cursor_ingested_at/.test(text)) matching += 1;
    return original.apply(client, args);
  };
  return { count: () => matching, restore: () => void (client.query = original) };
}

export async function benchDispatch(db: Database, log: (line: string) => void): Promise<DispatchFigures> {
  const run = `dispatch-${Date.now()}`;
  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { webhook_id, signal_count } = JSON.parse(body) as { webhook_id: string; signal_count: number };
      received.set(webhook_id, (received.get(webhook_id) ?? 0) + signal_count);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey(),
  });
  const emails: string[] = [];
  try {
    log(`  registering ${WEBHOOKS} webhooks …`);
    for (let k = 0; k < WEBHOOKS / PER_KEY; k++) {
      const email = `${run}-${k}@bench.example.org`;
      emails.push(email);
      const key = await issueKeyForEmail(db, email, 'pro', 'bench');
      for (let w = 0; w < PER_KEY; w++) {
        const kind = (k * PER_KEY + w) % 3;
        const filter =
          kind === 0
            ? {}
            : kind === 1
              ? { layers: ['cyber', 'military'] }
              : { min_score: 5, country_codes: ['UA'] };
        await createWebhook(
          db,
          key.id,
          { url: `${target}/${k}/${w}`, secret: 'bench-secret-0123456789', ...filter } as never,
          config.WEBHOOK_ENCRYPTION_KEY,
        );
      }
    }
    // Every filter above matches some of these, so each webhook has at least one batch.
    const items = Array.from({ length: NEW_SIGNALS }, (_, i) => ({
      threat_layer: LAYERS[i % LAYERS.length],
      significance_score: (i % 10) + 0.5,
      signal_valence: 'update',
      title: `Dispatch bench signal ${i}`,
      content_display: `A new signal for the dispatcher benchmark, number ${i}.`,
      country_codes: i % 2 ? ['UA'] : ['PL'],
      published_at: new Date().toISOString(),
      source_url: `https://bench.example.com/${run}/${i}`,
      source: { name: 'Dispatch Bench', tier: 'discovered' },
    }));
    const ingested = await ingestSignals(db, items);
    if (ingested.accepted !== NEW_SIGNALS) throw new Error(`ingest accepted ${ingested.accepted}`);
    // Past the dispatcher's settling delay (1 s), as a cron run 5 minutes later would be.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    log('  one dispatcher pass …');
    const queries = countMatchingQueries(db);
    const started = performance.now();
    const summary = await dispatchWebhooks({
      db,
      config,
      now: () => new Date(),
      fetch: globalThis.fetch.bind(globalThis),
      log: consoleLogger('warn'),
    });
    const seconds = (performance.now() - started) / 1000;
    queries.restore();
    const signalsDelivered = [...received.values()].reduce((a, b) => a + b, 0);
    const figures = {
      webhooks: summary.webhooks,
      seconds,
      deliveries: summary.deliveries,
      succeeded: summary.succeeded,
      webhooksReached: received.size,
      signalsDelivered,
      matchingQueries: queries.count(),
      ok:
        received.size === WEBHOOKS &&
        summary.succeeded === summary.deliveries &&
        seconds * 1000 < RUN_BUDGET_MS &&
        queries.count() === summary.deliveries,
    };
    return figures;
  } finally {
    receiver.close();
    // Keys, webhooks and their delivery logs go with the accounts (cascade). The signals stay:
    // they went in through the pipeline, so the aggregates count them.
    if (emails.length) await db.delete(accounts).where(inArray(accounts.email, emails));
  }
}
