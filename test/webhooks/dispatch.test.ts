import { createHmac, timingSafeEqual } from 'node:crypto';

import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { webhooks } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { backoffMs, DELIVERY_LOG_DAYS, dispatchWebhooks, PAUSE_AFTER_MS } from '../../src/webhooks/dispatch';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import type { CreateWebhook } from '../../src/webhooks/schemas';
import { createWebhook, findWebhook, recentDeliveries, updateWebhook } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { backends, createKey, memoryLogger, withTestDatabase } from '../support/harness';
import { startReceiver, WEBHOOK_FIELDS, type Receiver, type Reply } from './receiver';

const SECRET = 'test-secret-0123456789';
const HOUR = 3_600_000;

let counter = 0;
/** A fixture signal under a fresh source_url, so each test ingests its own rows. */
function signal(name: keyof typeof FIXTURE, overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    ...FIXTURE[name],
    source_url: `https://wire.example.com/dispatch/${counter}-${Date.now()}`,
    ...overrides,
  };
}

describe.each(backends)('webhook dispatcher on $name', (backend) => {
  const database = withTestDatabase({ open: backend.open });
  const receivers: Receiver[] = [];
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey(),
  });
  // Real time plus a shift, so tests can jump over backoff delays.
  let shift = 0;
  const now = () => Date.now() + shift;
  const deps = () => ({
    db: database.db,
    config,
    now: () => new Date(now()),
    fetch: globalThis.fetch.bind(globalThis),
    log: memoryLogger(),
  });
  const run = () => dispatchWebhooks(deps(), { settleMs: 0, timeoutMs: 1_000 });

  async function receiver(replies: Reply[] = []) {
    const started = await startReceiver(replies);
    receivers.push(started);
    return started;
  }
  async function webhook(url: string, input: Omit<CreateWebhook, 'url'> = {}) {
    const key = await createKey(database.db);
    const row = await createWebhook(database.db, key.id, { url, ...input }, config.WEBHOOK_ENCRYPTION_KEY);
    return { key, row: row! };
  }
  const ingest = async (items: unknown[]) => {
    const result = await ingestSignals(database.db, items);
    expect(result.accepted).toBe(items.length);
  };
  const delivered = (r: Receiver) =>
    r.received.filter((x) => x.reply === 200).flatMap((x) => x.body.signals.map((s) => s.id));

  afterEach(async () => {
    // Each test registers its own webhooks; none may be left for the next test's runs.
    await database.db.delete(webhooks);
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    shift = 0;
  });

  it('delivers the documented body, signed so node:crypto and standardwebhooks both verify it', async () => {
    const r = await receiver();
    const { row } = await webhook(r.url, { secret: SECRET });
    await ingest([signal('kyivStrike'), signal('lyonHospital')]);
    const summary = await run();
    expect(summary).toMatchObject({ deliveries: 1, succeeded: 1, signals: 2 });

    expect(r.received).toHaveLength(1);
    const [{ headers, raw, body }] = r.received as [(typeof r.received)[number]];
    expect(Object.keys(body)).toEqual(['webhook_id', 'fired_at', 'signal_count', 'signals']);
    expect(body).toMatchObject({ webhook_id: row.id, signal_count: 2 });
    expect(Object.keys(body.signals[0]!).sort()).toEqual([...WEBHOOK_FIELDS].sort());
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('SignalIntel-Webhooks/1');

    const expected = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    const presented = String(headers['x-service-signature-256']);
    expect(timingSafeEqual(Buffer.from(presented), Buffer.from(expected))).toBe(true);

    expect(headers['webhook-id']).toBe(headers['x-service-delivery']);
    const verifier = new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`);
    expect(
      verifier.verify(raw, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).toEqual(body);
    expect(() =>
      verifier.verify(raw.replace('"signal_count":2', '"signal_count":3'), {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).toThrow();
  });

  it('sends unsigned deliveries to a webhook without a secret', async () => {
    const r = await receiver();
    await webhook(r.url);
    await ingest([signal('kyivStrike')]);
    await run();
    expect(r.received).toHaveLength(1);
    const { headers } = r.received[0]!;
    expect(headers['x-service-signature-256']).toBeUndefined();
    expect(headers['webhook-signature']).toBeUndefined();
    expect(headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never sends unsigned when the secret cannot be read, and counts it as a failure', async () => {
    const r = await receiver();
    const key = await createKey(database.db);
    const row = (await createWebhook(
      database.db,
      key.id,
      { url: r.url, secret: SECRET },
      generateEncryptionKey(),
    ))!;
    await ingest([signal('kyivStrike')]);
    expect(await run()).toMatchObject({ failed: 1, deliveries: 0 });
    expect(r.received).toHaveLength(0);
    expect((await findWebhook(database.db, key.id, row.id))!.consecutiveFailures).toBe(1);
  });

  it('matches layers, min_score, country_codes and valence exactly', async () => {
    const r = await receiver();
    const hooks = {
      cyberUpdateUa: await webhook(`${r.url}?cyber`, {
        layers: ['cyber'],
        min_score: 7,
        country_codes: ['UA'],
        valence: 'update',
      }),
      crisisAbove8: await webhook(`${r.url}?crisis`, { min_score: 8, valence: 'crisis' }),
      poland: await webhook(`${r.url}?pl`, { country_codes: ['PL', 'NG'] }),
      supply: await webhook(`${r.url}?supply`, { layers: ['supply_chain', 'political'] }),
    };
    const names = [
      'kyivStrike',
      'lvivGrid',
      'lyonHospital',
      'lagosPort',
      'mumbaiFlood',
      'tokyoMarkets',
      'bogotaCartel',
      'ottawaVote',
      'globalOutbreak',
    ] as const;
    const items = names.map((name) => signal(name));
    await ingest(items);
    await run();
    const byUrl = (suffix: string) =>
      r.received
        .filter((x) => x.path.endsWith(suffix))
        .flatMap((x) => x.body.signals.map((s) => (s as unknown as { source_url: string }).source_url))
        .map((url) => names[items.findIndex((item) => item.source_url === url)])
        .sort();
    expect(byUrl('?cyber')).toEqual(['lvivGrid']);
    expect(byUrl('?crisis')).toEqual(['globalOutbreak', 'kyivStrike', 'lyonHospital']);
    expect(byUrl('?pl')).toEqual(['lagosPort', 'lvivGrid']);
    expect(byUrl('?supply')).toEqual(['lagosPort', 'ottawaVote']);
    expect(Object.keys(hooks)).toHaveLength(4);
  });

  it('ends with every signal delivered exactly once after 500, 500, a hang, then 200', async () => {
    const r = await receiver([500, 500, 'hang']);
    const { key, row } = await webhook(r.url, { secret: SECRET });
    const items = Array.from({ length: 150 }, () => signal('kyivStrike'));
    await ingest(items);

    for (let attempt = 1; attempt <= 3; attempt++) {
      const summary = await run();
      expect(summary).toMatchObject({ deliveries: 1, failed: 1 });
      expect(await run()).toMatchObject({ deliveries: 0 }); // not due before its backoff
      const state = (await findWebhook(database.db, key.id, row.id))!;
      expect(state.consecutiveFailures).toBe(attempt);
      const wait = state.nextAttemptAt.getTime() - now();
      expect(wait).toBeGreaterThan(backoffMs(attempt) - 60_000);
      expect(wait).toBeLessThanOrEqual(backoffMs(attempt));
      shift += backoffMs(attempt);
    }
    const summary = await run();
    expect(summary).toMatchObject({ deliveries: 2, succeeded: 2, signals: 150 });
    expect(await run()).toMatchObject({ deliveries: 0 });

    const ids = delivered(r);
    expect(ids).toHaveLength(150);
    expect(new Set(ids).size).toBe(150);
    // Every retry of the first batch carried the same delivery id and the same 100 signals.
    const firstBatch = r.received.slice(0, 4);
    expect(new Set(firstBatch.map((x) => x.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(firstBatch.map((x) => x.body.signals.map((s) => s.id).join())).size).toBe(1);
    expect(r.received[4]!.headers['x-service-delivery']).not.toBe(
      r.received[0]!.headers['x-service-delivery'],
    );

    const state = (await findWebhook(database.db, key.id, row.id))!;
    expect(state).toMatchObject({
      consecutiveFailures: 0,
      failingSince: null,
      lastStatus: 200,
      active: true,
    });
    const log = await recentDeliveries(database.db, row.id);
    expect(log.map((d) => d.status)).toEqual([200, 200, null, 500, 500]);
    expect(log[2]!.error).toBe('timeout');
  });

  it('sends at most 10 deliveries of 100 signals per webhook per run, the rest next run', async () => {
    const r = await receiver();
    await webhook(r.url);
    await ingest(Array.from({ length: 1_001 }, () => signal('tokyoMarkets')));
    expect(await run()).toMatchObject({ deliveries: 10, signals: 1_000 });
    expect(r.received.every((x) => x.body.signal_count === 100)).toBe(true);
    expect(await run()).toMatchObject({ deliveries: 1, signals: 1 });
    expect(new Set(delivered(r)).size).toBe(1_001);
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const target = await receiver();
    const r = await receiver([{ redirect: target.url }]);
    const { key, row } = await webhook(r.url);
    await ingest([signal('kyivStrike')]);
    expect(await run()).toMatchObject({ failed: 1, succeeded: 0 });
    expect(target.received).toHaveLength(0);
    const state = (await findWebhook(database.db, key.id, row.id))!;
    expect(state).toMatchObject({ consecutiveFailures: 1, lastStatus: 302 });
    expect((await recentDeliveries(database.db, row.id))[0]).toMatchObject({ ok: false, status: 302 });
    // `active: true` on a webhook that is not paused must not skip its backoff.
    const touched = (await updateWebhook(database.db, key.id, row.id, { active: true }, new Date(now())))!;
    expect(touched.consecutiveFailures).toBe(1);
    expect(touched.nextAttemptAt.getTime()).toBe(state.nextAttemptAt.getTime());
  });

  it('pauses a webhook after 3 days of consecutive failures', async () => {
    const r = await receiver(Array<Reply>(100).fill(503));
    const { key, row } = await webhook(r.url);
    await ingest([signal('kyivStrike')]);
    const start = now();
    while (now() - start < PAUSE_AFTER_MS) {
      await run();
      shift += 6 * HOUR;
    }
    const summary = await run();
    expect(summary.paused).toBe(1);
    const state = (await findWebhook(database.db, key.id, row.id))!;
    expect(state.active).toBe(false);
    expect(state.disabledReason).toMatch(/paused after failing since/);
    shift += 6 * HOUR;
    const before = r.received.length;
    await run();
    expect(r.received).toHaveLength(before);
    const resumed = (await updateWebhook(database.db, key.id, row.id, { active: true }, new Date(now())))!;
    expect(resumed).toMatchObject({
      active: true,
      consecutiveFailures: 0,
      failingSince: null,
      disabledReason: null,
    });
    expect(resumed.nextAttemptAt.getTime()).toBeLessThanOrEqual(now());
  });

  it('keeps 30 days of delivery log and releases its lease after a run', async () => {
    const r = await receiver();
    const { key, row } = await webhook(r.url);
    await ingest([signal('kyivStrike')]);
    await run();
    shift += (DELIVERY_LOG_DAYS + 1) * 24 * HOUR;
    await ingest([signal('lvivGrid')]);
    await run();
    const log = await recentDeliveries(database.db, row.id);
    expect(log).toHaveLength(1);
    expect(log[0]!.signal_count).toBe(1);
    expect((await findWebhook(database.db, key.id, row.id))!.leaseUntil).toBeNull();
  });

  it('sends nothing to a paused webhook, and resumes from its cursor', async () => {
    const r = await receiver();
    const { key, row } = await webhook(r.url);
    await updateWebhook(database.db, key.id, row.id, { active: false }, new Date(now()));
    const items = [signal('kyivStrike'), signal('lvivGrid')];
    await ingest(items);
    expect(await run()).toMatchObject({ webhooks: 0, deliveries: 0 });
    expect(r.received).toHaveLength(0);
    const resumed = (await updateWebhook(database.db, key.id, row.id, { active: true }, new Date(now())))!;
    expect(resumed).toMatchObject({ active: true, consecutiveFailures: 0, disabledReason: null });
    await run();
    expect(delivered(r)).toHaveLength(2);
  });

  it('never sends the same batch from two runs started together', async () => {
    const r = await receiver();
    for (let i = 0; i < 4; i++) await webhook(`${r.url}?${i}`);
    await ingest(Array.from({ length: 30 }, () => signal('lvivGrid')));
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.deliveries + b.deliveries).toBe(4);
    const perHook = new Map<string, string[]>();
    for (const x of r.received)
      perHook.set(x.path, [...(perHook.get(x.path) ?? []), ...x.body.signals.map((s) => s.id)]);
    expect(perHook.size).toBe(4);
    for (const ids of perHook.values()) {
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
    }
  });

  it.skipIf(backend.name === 'pglite')('still delivers a signal whose transaction commits late', async () => {
    const r = await receiver();
    const { row } = await webhook(r.url);
    const early = signal('kyivStrike');
    // Nothing shared with `early` (source, layer, place), so its ingest does not wait on the open one.
    const later = signal('tokyoMarkets', { source: { name: `Late Wire ${counter}`, tier: 'core' } });
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    // A slow ingest: its rows are stamped at its start but become visible only at its commit.
    const slow = database.db.transaction(async (tx) => {
      await ingestSignals(tx, [early]);
      opened();
      await held;
    });
    await isOpen;
    await ingest([later]);
    expect(await run()).toMatchObject({ deliveries: 0 });
    commit();
    await slow;
    await run();
    const urls = r.received.flatMap((x) =>
      x.body.signals.map((s) => (s as unknown as { source_url: string }).source_url),
    );
    expect(urls).toEqual([early.source_url, later.source_url]);
    expect(r.received.every((x) => x.body.webhook_id === row.id)).toBe(true);
  });

  it('keeps a new webhook from receiving the backlog', async () => {
    await ingest([signal('kyivStrike')]);
    const r = await receiver();
    await webhook(r.url);
    await run();
    expect(r.received).toHaveLength(0);
  });
});

describe('backoff table', () => {
  it('doubles from 5 minutes and caps at 6 hours', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffMs(n) / 60_000)).toEqual([
      5, 10, 20, 40, 80, 160, 320, 360, 360,
    ]);
  });
});
