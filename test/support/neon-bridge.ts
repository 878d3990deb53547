/**
 * Test-only stand-in for Neon's WebSocket proxy.
 *
 * `@neondatabase/serverless` speaks the plain Postgres wire protocol over a
 * WebSocket: the proxy at `/v1?address=host:port` opens a TCP connection to
 * `host:port` and shuttles bytes both ways. This module provides that proxy
 * for a local Postgres so the real Neon driver can be exercised in tests.
 */
import { createServer, type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { neonConfig, Pool } from '@neondatabase/serverless';
import ws, { WebSocketServer, type WebSocket } from 'ws';

export interface NeonBridge {
  port: number;
  close(): Promise<void>;
}

/** Only loopback targets: the bridge must never become an open relay. */
function parseLoopbackAddress(address: string | null): { host: string; port: number } | undefined {
  if (!address) return undefined;
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (!match) return undefined;
  const host = match[1]!;
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  const loopback =
    host === 'localhost' ||
    host === '::1' ||
    (net.isIPv4(host) && host.startsWith('127.')) ||
    /^::ffff:127\./i.test(host);
  return loopback ? { host, port } : undefined;
}

function rejectUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export async function startNeonBridge(): Promise<NeonBridge> {
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required\n');
  });
  const wss = new WebSocketServer({ noServer: true });
  const tcpSockets = new Set<net.Socket>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://bridge');
    if (url.pathname !== '/v1') return rejectUpgrade(socket, '404 Not Found');
    const target = parseLoopbackAddress(url.searchParams.get('address'));
    if (!target) return rejectUpgrade(socket, '403 Forbidden');
    wss.handleUpgrade(req, socket, head, (client) => pipe(client, target));
  });

  function pipe(client: WebSocket, target: { host: string; port: number }): void {
    // Writes issued before the TCP connect completes are queued by net.Socket.
    const tcp = net.connect(target.port, target.host);
    tcpSockets.add(tcp);
    tcp.setNoDelay(true);

    client.on('message', (data: Buffer) => {
      if (!tcp.destroyed) tcp.write(data);
    });
    tcp.on('data', (chunk) => {
      if (client.readyState === client.OPEN) client.send(chunk, { binary: true });
    });

    const closeClient = (): void => {
      if (client.readyState === client.OPEN || client.readyState === client.CONNECTING) client.close();
    };
    tcp.on('error', () => closeClient());
    tcp.on('close', () => {
      tcpSockets.delete(tcp);
      closeClient();
    });
    client.on('error', () => tcp.destroy());
    client.on('close', () => tcp.destroy());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const tcp of tcpSockets) tcp.destroy();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let configuredPort: number | undefined;

/**
 * Point the (process-global) neonConfig at a bridge. Safe to call repeatedly;
 * a later call with a different port re-targets the proxy.
 */
export function configureNeon(bridgePort: number): void {
  if (configuredPort === bridgePort) return;
  configuredPort = bridgePort;
  neonConfig.webSocketConstructor = ws;
  neonConfig.wsProxy = (host, port) => `localhost:${bridgePort}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** A Neon serverless Pool; call configureNeon() first. */
export function neonPool(connectionString: string): Pool {
  if (configuredPort === undefined) {
    throw new Error('neonPool(): call configureNeon(bridge.port) before creating a pool');
  }
  return new Pool({ connectionString });
}
