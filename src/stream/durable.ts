import type { Change, SyncKey } from './changes';
import type { EndReason, StreamHub } from './hub';

/**
 * Workers: the stream's fan-out through one Durable Object (src/stream/durable-object.ts,
 * docs/stream.md "On Workers"). Each client's SSE response is held by an API Worker invocation,
 * which holds a WebSocket to the hub; a wake-up (`POST /changed`, sent by the API Worker after an
 * admin write and by the cron Worker after its polls) makes the hub read and fan out.
 */

/** What the hub sends a Worker over the socket. */
export type HubMessage = { start: SyncKey } | { changes: Change[] } | { end: EndReason };

/** The one hub every API Worker and the cron Worker talk to. */
const hubStub = (namespace: DurableObjectNamespace) => namespace.get(namespace.idFromName('stream-hub'));

/**
 * The Worker's side of the hub: a socket per open stream. `waitUntil` keeps a wake-up running
 * after the response that sent it.
 */
export function durableHub(
  namespace: DurableObjectNamespace,
  waitUntil: (p: Promise<unknown>) => void,
): StreamHub {
  return {
    async subscribe(subscriber, cap) {
      const query = new URLSearchParams({
        key: subscriber.keyId,
        cap: String(cap),
        filter: JSON.stringify(subscriber.filter),
      });
      const response = await hubStub(namespace).fetch(`https://stream-hub/subscribe?${query}`, {
        headers: { Upgrade: 'websocket' },
      });
      if (response.status === 429) return null;
      const socket = response.webSocket;
      if (!socket) throw new Error(`stream hub answered ${response.status}`);
      socket.accept();
      const start = await new Promise<SyncKey>((resolve, reject) => {
        let started = false;
        socket.addEventListener('message', (event) => {
          const message = JSON.parse(String(event.data)) as HubMessage;
          if ('start' in message) {
            started = true;
            resolve(message.start);
          } else if ('changes' in message) subscriber.deliver(message.changes);
          else subscriber.end(message.end);
        });
        socket.addEventListener('close', () => {
          if (!started) reject(new Error('stream hub closed the socket'));
          // A hub that goes away (a deploy, an eviction with open sockets) ends the stream
          // resumably; the client reconnects with its cursor.
          else subscriber.end('unavailable');
        });
      });
      return {
        start,
        close: () => {
          try {
            socket.close(1000, 'stream closed');
          } catch {
            // Already closed by the hub.
          }
        },
      };
    },
    changed() {
      waitUntil(hubStub(namespace).fetch('https://stream-hub/changed', { method: 'POST' }));
    },
    async close() {},
  };
}
