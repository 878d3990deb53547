import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRUNCATED_HEADER, workerOutboundFetch, type OutboundFetch } from '../../src/net/outbound';
import { nodeOutboundFetch } from '../../src/net/outbound-node';
import { sendDelivery } from '../../src/webhooks/deliver';

const CAP = 64 * 1024;

/** /huge answers 5 MiB; /endless never stops sending; /redirect points at /target. */
let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    if (req.url === '/huge') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(Buffer.alloc(5 * 1024 * 1024, 'a'));
    } else if (req.url === '/endless') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'b');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else if (req.url === '/redirect') {
      res.writeHead(302, { Location: `${base}/target` }).end();
    } else {
      res.writeHead(200).end('target');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const implementations: [string, OutboundFetch][] = [
  ['node', nodeOutboundFetch({ allowPrivate: true })],
  ['workers (platform fetch)', workerOutboundFetch({ allowPrivate: true })],
];

describe.each(implementations)('outbound responses on %s', (_name, outbound) => {
  it('keeps at most the cap of a huge body and says it cut it', async () => {
    const response = await outbound(`${base}/huge`, { maxBodyBytes: CAP });
    expect(response.status).toBe(200);
    expect(response.headers.get(TRUNCATED_HEADER)).toBe('1');
    expect((await response.arrayBuffer()).byteLength).toBe(CAP);
  });

  it('returns from a body that never ends', async () => {
    const response = await outbound(`${base}/endless`, { maxBodyBytes: CAP });
    expect((await response.text()).length).toBe(CAP);
  });

  it('keeps a small body whole and unmarked', async () => {
    const response = await outbound(`${base}/target`, { maxBodyBytes: CAP });
    expect(response.headers.get(TRUNCATED_HEADER)).toBeNull();
    expect(await response.text()).toBe('target');
  });

  it('never follows a redirect', async () => {
    hits.length = 0;
    const response = await outbound(`${base}/redirect`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${base}/target`);
    expect(hits).toEqual(['/redirect']);
  });
});

describe('webhook deliveries', () => {
  const send = (path: string) =>
    sendDelivery(
      { url: `${base}${path}`, deliveryId: crypto.randomUUID(), body: '{}', secret: null },
      { fetch: nodeOutboundFetch({ allowPrivate: true }), allowInsecure: true, timestamp: 0 },
    );

  it('record an endless 200 answer as delivered instead of hanging on it', async () => {
    expect(await send('/endless')).toMatchObject({ ok: true, status: 200, error: null });
  });

  it('record a redirect as http_302 and do not follow it', async () => {
    hits.length = 0;
    expect(await send('/redirect')).toMatchObject({ ok: false, status: 302, error: 'http_302' });
    expect(hits).toEqual(['/redirect']);
  });
});
