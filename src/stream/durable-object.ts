import { and, inArray, isNotNull } from 'drizzle-orm';
import type { Database } from '../db/client';
import { apiKeys } from '../db/schema';
import { consoleLogger } from '../deps';
import { workerConfig, workerDatabase, type WorkerEnv } from '../worker-deps';
import { readChanges, settledKey, type Change, type SyncKey } from './changes';
import type { HubMessage } from './durable';
import { matchesStream, type StreamFilter } from './filter';
import { HUB_PAGE } from './hub';

/**
 * The Durable Object of the stream's hub (docs/stream.md, "On Workers"): it holds one WebSocket
 * per open stream, accepted with the hibernation API, so between changes it is evicted from
 * memory and costs nothing while the sockets stay open. A wake-up (`POST /changed`) makes it read
 * the changes since its position once, from Neon, and send each socket what passes its filter.
 * Exported by the API Worker (src/index.ts); the cron Worker reaches it by `script_name`.
 */

/** What the hub keeps with each socket, across hibernation. */
interface Attachment {
  filter: StreamFilter;
  keyId: string;
}

const POSITION = 'position';

export class StreamHubObject {
  /** Reads and subscriptions one at a time, so a position is never read while it moves. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: WorkerEnv,
  ) {}

  /** Runs `task` after the ones before it; a failure is logged, never thrown into the object. */
  private serial<T>(task: () => Promise<T>): Promise<T | undefined> {
    const run = this.turn.then(task).catch((error: unknown) => {
      consoleLogger(workerConfig(this.env).LOG_LEVEL).error('stream hub failed', { error: String(error) });
      return undefined;
    });
    this.turn = run;
    return run;
  }

  /** Runs `work` on a database of its own, closed after (a Durable Object outlives requests). */
  private async withDb<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const database = workerDatabase(this.env, workerConfig(this.env));
    try {
      return await work(database.db);
    } finally {
      await database.close();
    }
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/changed') {
      await this.serial(() => this.pump());
      return new Response(null, { status: 204 });
    }
    if (url.pathname !== '/subscribe' || request.headers.get('Upgrade') !== 'websocket') {
      return new Response('not found', { status: 404 });
    }
    const keyId = url.searchParams.get('key') ?? '';
    const cap = Number(url.searchParams.get('cap'));
    const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as StreamFilter;
    // The count of a key's streams is global here: every stream of every isolate has a socket.
    if (this.ctx.getWebSockets(keyId).length >= cap) return new Response('too many streams', { status: 429 });
    const position = await this.serial(async () => {
      let at = await this.ctx.storage.get<SyncKey>(POSITION);
      if (!at || this.ctx.getWebSockets().length === 0) {
        at = await this.withDb(settledKey);
        await this.ctx.storage.put(POSITION, at);
      }
      return at;
    });
    if (!position) return new Response('hub unavailable', { status: 503 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [keyId]);
    server.serializeAttachment({ filter, keyId } satisfies Attachment);
    server.send(JSON.stringify({ start: position } satisfies HubMessage));
    if ((await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(Date.now() + workerConfig(this.env).STREAM_KEY_CHECK_MS);
    }
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Reads the changes since the hub's position, once, and sends each socket its share. */
  private async pump(): Promise<void> {
    const sockets = this.ctx.getWebSockets();
    const position = await this.ctx.storage.get<SyncKey>(POSITION);
    if (sockets.length === 0 || !position) return;
    let at = position;
    await this.withDb(async (db) => {
      let page: Change[];
      do {
        page = await readChanges(db, {}, at, HUB_PAGE);
        if (page.length === 0) break;
        at = page[page.length - 1]!.key;
        for (const socket of sockets) {
          const { filter } = socket.deserializeAttachment() as Attachment;
          const changes = page.filter((change) => matchesStream(filter, change.signal));
          if (changes.length > 0) socket.send(JSON.stringify({ changes } satisfies HubMessage));
        }
      } while (page.length === HUB_PAGE);
    });
    await this.ctx.storage.put(POSITION, at);
  }

  /**
   * While sockets are open: ends those of revoked keys (one query for all of them) and reads
   * once more, for changes that were not yet settled at the last wake-up.
   */
  async alarm(): Promise<void> {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const keyIds = [...new Set(sockets.map((s) => (s.deserializeAttachment() as Attachment).keyId))];
    const revoked = await this.withDb((db) =>
      db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(inArray(apiKeys.id, keyIds), isNotNull(apiKeys.revokedAt))),
    );
    for (const { id } of revoked) {
      for (const socket of this.ctx.getWebSockets(id)) {
        socket.send(JSON.stringify({ end: 'key_revoked' } satisfies HubMessage));
        socket.close(1000, 'key revoked');
      }
    }
    await this.serial(() => this.pump());
    if (this.ctx.getWebSockets().length > 0) {
      await this.ctx.storage.setAlarm(Date.now() + workerConfig(this.env).STREAM_KEY_CHECK_MS);
    }
  }

  webSocketMessage(): void {
    // Workers only listen; nothing they could send changes the hub.
  }

  webSocketClose(socket: WebSocket, code: number, reason: string): void {
    try {
      socket.close(code, reason);
    } catch {
      // The runtime already answered the close.
    }
  }
}
