import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The fields of a signal in a delivery (spec, "Signal"), plus the event fields. */
export const WEBHOOK_FIELDS = [
  'id',
  'threat_layer',
  'significance_score',
  'signal_valence',
  'content_display',
  'country_codes',
  'published_at',
  'collected_at',
  'is_anomaly',
  'source_url',
  // Additive: the signal's event and its independent publishers.
  'event_id',
  'corroboration',
] as const;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  reply: Reply;
  body: { webhook_id: string; fired_at: string; signal_count: number; signals: { id: string }[] };
}

/** What the receiver does with one request: answer a status, redirect, or never answer. */
export type Reply = number | { redirect: string } | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1. `replies` are used in order (then 200); every request is
 * kept, so tests can read exactly what arrived.
 */
export async function startReceiver(replies: Reply[] = []) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const queue = [...replies];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const reply = queue.shift() ?? 200;
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        reply,
        body: raw ? JSON.parse(raw) : null,
      });
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (typeof reply === 'object') {
        res.writeHead(302, { Location: reply.redirect }).end();
        return;
      }
      res.writeHead(reply, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
