import net, { type AddressInfo } from 'node:net';

/** A loopback TCP relay that can be taken down and brought back on the same port (fault injection). */
export interface TcpProxy {
  port: number;
  /** Refuses new connections and cuts the open ones, like a database that went away. */
  stop(): Promise<void>;
  /**
   * Cuts the open connections, then accepts new ones but never forwards or answers on them, like
   * a peer that is reachable but stalled; start() cuts them and relays again.
   */
  hang(): Promise<void>;
  /** Relays again on the same port (listening again if stopped). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a relay from a free loopback port to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const held = new Set<net.Socket>();
  let hanging = false;
  let port = 0;
  let server: net.Server | undefined;

  const hold = (client: net.Socket) => {
    held.add(client);
    client.on('close', () => held.delete(client));
    client.on('error', () => client.destroy());
  };
  const relay = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  };
  const cut = (set: Set<net.Socket>) => {
    for (const s of set) s.destroy();
  };

  const listen = async () => {
    if (server) return;
    const next = net.createServer((client) => (hanging ? hold(client) : relay(client)));
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = undefined;
    cut(sockets);
    cut(held);
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    async hang() {
      hanging = true;
      cut(sockets);
      await listen();
    },
    async start() {
      hanging = false;
      cut(held);
      await listen();
    },
    close: stop,
  };
}
