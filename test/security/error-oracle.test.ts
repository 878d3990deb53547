import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeOutboundFetch } from '../../src/net/outbound-node';
import { sendTestDelivery } from '../../src/webhooks/dispatch';
import { findWebhook } from '../../src/webhooks/service';
import {
  createKey,
  startTestApp,
  type TestApp,
  keyCall,
  withTestApp,
  closeAfterAll,
} from '../support/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';

type TestAnswer = { ok: boolean; status: number | null; error: string | null };
type Delivery = { error: string | null; test: boolean };

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const CLASSES = /^(dns_failed|connect_failed|tls_failed|timeout|blocked_address|http_\d{3})$/;

describe('delivery failures are classified, never raw error text', () => {
  let receiver: Receiver;
  let key: string;

  // Loopback receivers need the development flag; the guard itself is tested below and in
  // outbound-dns.test.ts.
  const app = withTestApp({ config: { WEBHOOK_ALLOW_INSECURE: true } });
  const closing = closeAfterAll();
  beforeAll(async () => {
    receiver = closing(await startReceiver([500, 'hang']));
  });
  // A key may hold 5 webhooks: each test registers under its own.
  beforeEach(async () => {
    key = (await createKey(app.db)).key;
  });

  async function register(url: string, on: Pick<TestApp, 'fetch'> = app, apiKey = key): Promise<string> {
    const res = await on.fetch('/api/v1/webhooks', keyCall(apiKey, 'POST', { url }));
    expect(res.status).toBe(201);
    return (await res.json<{ id: string }>()).id;
  }
  async function ping(id: string, on: Pick<TestApp, 'fetch'> = app, apiKey = key): Promise<TestAnswer> {
    const res = await on.fetch(`/api/v1/webhooks/${id}/test`, keyCall(apiKey, 'POST'));
    expect(res.status).toBe(200);
    return await res.json<TestAnswer>();
  }
  async function logged(id: string, on: Pick<TestApp, 'fetch'> = app, apiKey = key): Promise<Delivery[]> {
    const res = await on.fetch(`/api/v1/webhooks/${id}/deliveries`, keyCall(apiKey, 'GET'));
    return (await res.json<{ data: Delivery[] }>()).data;
  }

  const urls: Record<string, () => Promise<string>> = {
    'a refused connection': async () => `http://127.0.0.1:${await closedPort()}/hook`,
    'a name that does not resolve': async () => 'http://receiver.nowhere.invalid/hook',
    'TLS to a plain HTTP port': async () => receiver.url.replace('http:', 'https:'),
    'a 500 answer': async () => receiver.url,
  };
  it.each([
    ['a refused connection', 'connect_failed'],
    ['a name that does not resolve', 'dns_failed'],
    ['TLS to a plain HTTP port', 'tls_failed'],
    ['a 500 answer', 'http_500'],
  ])('%s answers /test and logs exactly %s', async (what, expected) => {
    const id = await register(await urls[what]!());
    const answer = await ping(id);
    expect(answer).toMatchObject({ ok: false, error: expected });
    const [entry] = await logged(id);
    expect(entry).toMatchObject({ error: expected, test: true });
    expect(entry!.error).toMatch(CLASSES);
  });

  it('a receiver slower than the timeout is logged as timeout', async () => {
    const id = await register(receiver.url);
    const { keyId } = (await app.db.query.webhooks.findFirst({ where: (w, { eq }) => eq(w.id, id) }))!;
    const webhook = (await findWebhook(app.db, keyId, id))!;
    // The /test route uses the 10 s delivery timeout; the same function, with a short one.
    const result = await sendTestDelivery(app.deps, webhook, { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect((await logged(id))[0]).toMatchObject({ error: 'timeout' });
  });

  it('an address the guard refuses at connect time is logged as blocked_address', async () => {
    // Guard on; the name is public-looking, its DNS answer is not.
    const guarded = await startTestApp(app.db, {
      deps: {
        fetch: nodeOutboundFetch({
          resolve: async () => [{ address: '10.0.0.7', family: 4 }],
        }),
      },
    });
    try {
      const id = await register('https://hooks.example.com/hook', guarded);
      expect(await ping(id, guarded)).toMatchObject({ ok: false, status: null, error: 'blocked_address' });
      expect((await logged(id, guarded))[0]).toMatchObject({ error: 'blocked_address' });
    } finally {
      await guarded.close();
    }
  });
});
