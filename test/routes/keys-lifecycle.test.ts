import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { revokedFlag } from '../../src/keys/cache';
import { signUp as signUpAccount } from '../../src/keys/service';
import { backends, json, startTestApp, type TestApp } from '../support/harness';
import { clearOfWindowEdge, storeKinds, type TestStore } from '../http/stores';

interface Issued {
  id: string;
  key: string;
  prefix: string;
  name: string | null;
  tier: string;
}
interface KeyRecord {
  id: string;
  prefix: string;
  name: string | null;
  tier: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  usage: { requests_total: number; window_used: number; window_limit: number; window_reset: number };
}

describe.each(backends)('key management on $name', (backend) => {
  let database: DatabaseHandle;
  let app: TestApp;
  let store: TestStore;
  const kind = storeKinds()[0]!; // memory behind a switch

  beforeAll(async () => {
    database = await backend.open();
  });
  // Each test gets its own server and store, so no test inherits another's rate-limit buckets.
  beforeEach(async () => {
    store = await kind.open();
    app = await startTestApp(database.db, { store: store.store });
  });
  afterEach(async () => {
    await app?.close();
  });
  afterAll(async () => {
    await database?.close();
  });

  const as = (key: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'X-Api-Key': key },
  });
  /** A new free account's first key (signup over HTTP has its own tests). */
  async function signUp(name?: string): Promise<Issued> {
    return (await signUpAccount(database.db, `${randomUUID()}@example.org`, name ?? null))!;
  }
  async function addKey(key: string, body: unknown = {}) {
    return app.fetch('/api/v1/keys', as(key, json(body)));
  }
  async function list(key: string): Promise<{ text: string; data: KeyRecord[] }> {
    const res = await app.fetch('/api/v1/keys', as(key));
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, data: (JSON.parse(text) as { data: KeyRecord[] }).data };
  }
  const revoke = (key: string, id: string) => app.fetch(`/api/v1/keys/${id}`, as(key, { method: 'DELETE' }));
  const code = async (res: Response) => (await res.json<{ code: string }>()).code;

  it('adds a key, lists both with usage and no secrets, revokes one and refuses it at once', async () => {
    await clearOfWindowEdge(3600);
    const first = await signUp('laptop');
    const res = await addKey(first.key, { name: 'ci' });
    expect(res.status).toBe(201);
    const second = await res.json<Issued>();
    expect(second).toMatchObject({ name: 'ci', tier: 'free', prefix: second.key.slice(0, 12) });
    for (let i = 0; i < 3; i++) {
      expect((await app.fetch('/api/v1/signals?limit=1', as(second.key))).status).toBe(200);
    }

    const { text, data } = await list(first.key);
    for (const secret of [first.key, second.key]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/"key"|key_hash|[0-9a-f]{64}/);
    expect(data.map((k) => [k.id, k.name, k.tier, k.revoked_at])).toEqual([
      [first.id, 'laptop', 'free', null],
      [second.id, 'ci', 'free', null],
    ]);
    const [mine, ci] = data as [KeyRecord, KeyRecord];
    expect(Object.keys(mine).sort()).toEqual(
      ['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'tier', 'usage'].sort(),
    );
    expect(ci.usage).toMatchObject({ requests_total: 3, window_used: 3, window_limit: 100 });
    expect(ci.last_used_at).not.toBeNull();
    // The first key made the POST (recorded) and this list call (counted, recorded after it).
    expect(mine.usage).toMatchObject({ requests_total: 1, window_used: 2, window_limit: 100 });
    expect(mine.usage.window_reset).toBeGreaterThan(Date.now() / 1000);
    expect(Number.isInteger(mine.usage.window_reset)).toBe(true);

    const deleted = await revoke(first.key, second.id);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const refused = await app.fetch('/api/v1/signals', as(second.key));
    expect(refused.status).toBe(401);
    expect(await code(refused)).toBe('invalid_api_key');
    const after = await list(first.key);
    expect(after.data.find((k) => k.id === second.id)?.revoked_at).not.toBeNull();
    expect((await revoke(first.key, second.id)).status).toBe(204);
  });

  it('refuses to revoke the key in use', async () => {
    const own = await signUp();
    const res = await revoke(own.key, own.id);
    expect(res.status).toBe(409);
    expect(await code(res)).toBe('cannot_revoke_current_key');
    expect((await app.fetch('/api/v1/signals?limit=1', as(own.key))).status).toBe(200);
  });

  it("never reveals or touches another account's keys", async () => {
    const mine = await signUp();
    const theirs = await signUp();
    const res = await revoke(mine.key, theirs.id);
    expect(res.status).toBe(404);
    expect(await code(res)).toBe('not_found');
    expect((await revoke(mine.key, randomUUID())).status).toBe(404);
    expect((await list(mine.key)).data.map((k) => k.id)).toEqual([mine.id]);
    expect((await app.fetch('/api/v1/signals?limit=1', as(theirs.key))).status).toBe(200);
  });

  it.each([
    [{ tier: 'pro' }, 'body'],
    [{ name: 'x', active: true }, 'body'],
    [{ email: 'someone@example.org' }, 'email'],
    [{ name: '' }, 'name'],
  ])('rejects the body %j from a key holder', async (body, field) => {
    const own = await signUp();
    const res = await addKey(own.key, body);
    expect(res.status).toBe(400);
    const problem = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.path)).toContain(field);
    expect((await list(own.key)).data).toHaveLength(1);
  });

  it('rejects a malformed key id', async () => {
    const own = await signUp();
    const res = await revoke(own.key, 'not-a-uuid');
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { path: string }[] }>()).errors[0]?.path).toBe('id');
  });

  it('needs a key to list or revoke', async () => {
    const res = await app.fetch('/api/v1/keys');
    expect(res.status).toBe(401);
    expect(await code(res)).toBe('missing_api_key');
    expect((await app.fetch(`/api/v1/keys/${randomUUID()}`, { method: 'DELETE' })).status).toBe(401);
  });

  it('holds an account to 10 active keys, even under concurrent requests', async () => {
    const own = await signUp();
    const results = await Promise.all(Array.from({ length: 12 }, () => addKey(own.key)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(9);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    const refused = results.find((r) => r.status === 409)!;
    expect(await code(refused)).toBe('key_limit_reached');
    const { data } = await list(own.key);
    expect(data).toHaveLength(10);
    expect((await revoke(own.key, data[9]!.id)).status).toBe(204);
    expect((await addKey(own.key)).status).toBe(201);
  });

  it('refuses a key revoked by another process on its next request, through the store flag', async () => {
    const own = await signUp();
    const other = await (await addKey(own.key)).json<Issued>();
    expect((await app.fetch('/api/v1/signals?limit=1', as(other.key))).status).toBe(200); // now cached
    // What a revocation on another server does: the database row, then the shared store's flag.
    await database.db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${other.id}`);
    await store.store.set(revokedFlag(other.id), true, 3600);
    expect((await app.fetch('/api/v1/signals?limit=1', as(other.key))).status).toBe(401);
  });

  it('answers 503 when the store cannot take the revocation, and completes it on retry', async () => {
    const own = await signUp();
    const other = await (await addKey(own.key)).json<Issued>();
    store.stop();
    try {
      const res = await revoke(own.key, other.id);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).not.toBeNull();
      // The database already has it, and with the store down the database decides.
      expect((await app.fetch('/api/v1/signals?limit=1', as(other.key))).status).toBe(401);
    } finally {
      store.start();
    }
    expect((await revoke(own.key, other.id)).status).toBe(204);
    expect(await store.store.get(revokedFlag(other.id))).toBe(true);
  });
});
