import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, withTestDatabase } from '../support/harness';

/**
 * The Node server's connection bounds, with short injected values: behaviour, not wall-clock
 * (each wait below ends on an event; the test timeout is only the backstop).
 */

const open: Socket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.destroy();
});

// One database for both servers below: opening one is the slow part of this file.
const database = withTestDatabase();

/** A socket from `localAddress` that has connected, kept for clean-up. */
function socketTo(app: TestApp, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: app.port, localAddress });
    open.push(socket);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with what the server sent once it closes `socket`. */
const closedByServer = (socket: Socket): Promise<string> =>
  new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(received));
  });

/** A plain GET of the health check from `localAddress`, on its own connection. */
const health = (app: TestApp, localAddress: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: app.port, path: '/api/v1/health', localAddress, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });

const SLOW_HEADERS = 'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';

describe('slow clients', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(database.db, {
      config: { SERVER_HEADERS_TIMEOUT_MS: 1_000, SERVER_REQUEST_TIMEOUT_MS: 1_500 },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('closes a connection whose headers never finish', async () => {
    const socket = await socketTo(app);
    const closed = closedByServer(socket);
    socket.write(SLOW_HEADERS);
    const dribble = setInterval(() => socket.writable && socket.write('a'), 100);
    try {
      expect(await closed).toMatch(/^(HTTP\/1\.1 408|)/);
    } finally {
      clearInterval(dribble);
    }
    expect(await health(app, '127.0.0.2')).toBe(200);
  });

  it('closes a connection whose body arrives a byte at a time', async () => {
    const socket = await socketTo(app);
    const closed = closedByServer(socket);
    socket.write(
      'POST /api/v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{',
    );
    const dribble = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      await closed;
    } finally {
      clearInterval(dribble);
    }
    expect(socket.destroyed).toBe(true);
  });
});

describe('connections per client address', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Long timeouts: the slow sockets below must all stay open while the test looks.
    app = await startTestApp(database.db, {
      config: {
        SERVER_HEADERS_TIMEOUT_MS: 120_000,
        SERVER_REQUEST_TIMEOUT_MS: 120_000,
        SERVER_MAX_CONNECTIONS_PER_IP: 200,
      },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves others while one address holds 200 slow connections, and refuses its 201st', async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => socketTo(app)));
    for (const socket of slow) socket.write(SLOW_HEADERS);
    // Another client is served as usual.
    expect(await health(app, '127.0.0.2')).toBe(200);
    // The 201st from the same address is closed without an answer.
    const extra = await socketTo(app);
    const refused = closedByServer(extra);
    extra.write('GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await refused).toBe('');
    // The 200 are still open, and once they go the address is served again.
    expect(slow.every((socket) => !socket.destroyed)).toBe(true);
    const gone = slow.map((socket) => closedByServer(socket));
    for (const socket of slow) socket.destroy();
    await Promise.all(gone);
    expect(await health(app, '127.0.0.1')).toBe(200);
  });
});
