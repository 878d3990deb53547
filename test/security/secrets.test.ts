import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { pgliteDatabase } from '../../src/db/node';
import { webhooks } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import {
  decryptSecret,
  encryptSecret,
  generateEncryptionKey,
  SecretUnavailable,
} from '../../src/webhooks/crypto';
import { dispatchWebhooks } from '../../src/webhooks/dispatch';
import { reencryptSecrets } from '../../src/webhooks/rotate';
import { createWebhook, recentDeliveries } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { createKey, memoryLogger, startTestApp, withTestDatabase } from '../support/harness';
import { startReceiver } from '../webhooks/receiver';

const SECRET = 'rotation-secret-0123456789';
const OLD = generateEncryptionKey();
const NEW = generateEncryptionKey();
const ID_A = crypto.randomUUID();
const ID_B = crypto.randomUUID();

/** The first format, as rows written before this change hold it: `v1.<iv>.<ct>`, no AAD. */
async function legacyCiphertext(secret: string, base64Key: string): Promise<string> {
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const key = await crypto.subtle.importKey('raw', Buffer.from(base64Key, 'base64'), 'AES-GCM', false, [
    'encrypt',
  ]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(secret));
  return `v1.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

describe('webhook secrets at rest', () => {
  it('are bound to their webhook: a ciphertext moved to another webhook does not open', async () => {
    const stored = await encryptSecret(SECRET, OLD, ID_A);
    expect(await decryptSecret(stored, OLD, ID_A)).toBe(SECRET);
    await expect(decryptSecret(stored, OLD, ID_B)).rejects.toBeInstanceOf(SecretUnavailable);
  });

  it('rotate: newest key first encrypts, any listed key decrypts', async () => {
    const underOld = await encryptSecret(SECRET, OLD, ID_A);
    const rotated = `${NEW},${OLD}`;
    expect(await decryptSecret(underOld, rotated, ID_A)).toBe(SECRET);
    const underNew = await encryptSecret(SECRET, rotated, ID_A);
    expect(await decryptSecret(underNew, NEW, ID_A)).toBe(SECRET);
    await expect(decryptSecret(underNew, OLD, ID_A)).rejects.toBeInstanceOf(SecretUnavailable);
  });

  it('still reads rows of the first format (no AAD) under any listed key', async () => {
    const legacy = await legacyCiphertext(SECRET, OLD);
    expect(await decryptSecret(legacy, `${NEW},${OLD}`, ID_A)).toBe(SECRET);
    await expect(decryptSecret(legacy, NEW, ID_A)).rejects.toBeInstanceOf(SecretUnavailable);
  });

  it('refuses a tampered ciphertext as unavailable, not as a crash', async () => {
    const stored = await encryptSecret(SECRET, OLD, ID_A);
    const tampered = stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(decryptSecret(tampered, OLD, ID_A)).rejects.toBeInstanceOf(SecretUnavailable);
    await expect(decryptSecret('v9.garbage', OLD, ID_A)).rejects.toBeInstanceOf(SecretUnavailable);
  });

  it('takes WEBHOOK_ENCRYPTION_KEY as a comma-separated list and refuses a bad member', () => {
    expect(loadConfig({ WEBHOOK_ENCRYPTION_KEY: `${NEW}, ${OLD}` }).WEBHOOK_ENCRYPTION_KEY).toBe(
      `${NEW}, ${OLD}`,
    );
    expect(() => loadConfig({ WEBHOOK_ENCRYPTION_KEY: `${NEW},short` })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_ENCRYPTION_KEY: `${NEW},` })).toThrow(ConfigError);
  });
});

describe('webhook secrets in the service', () => {
  const database = withTestDatabase();

  const secretOf = async (id: string) =>
    (await database.db.select().from(webhooks).where(eq(webhooks.id, id)))[0]!.secretCiphertext!;

  it('re-encrypts every stored secret with the newest key, legacy rows included', async () => {
    const key = await createKey(database.db);
    const modern = (await createWebhook(
      database.db,
      key.id,
      { url: 'https://a.example.com/', secret: SECRET },
      OLD,
    ))!;
    const legacy = (await createWebhook(database.db, key.id, { url: 'https://b.example.com/' }, OLD))!;
    await database.db
      .update(webhooks)
      .set({ secretCiphertext: await legacyCiphertext(SECRET, OLD) })
      .where(eq(webhooks.id, legacy.id));
    const lost = (await createWebhook(
      database.db,
      key.id,
      { url: 'https://c.example.com/', secret: SECRET },
      generateEncryptionKey(),
    ))!;

    const rotated = `${NEW},${OLD}`;
    expect(await reencryptSecrets(database.db, rotated)).toEqual({
      secrets: 3,
      reencrypted: 2,
      current: 0,
      unreadable: 1,
    });
    // The old key can now go.
    for (const { id } of [modern, legacy]) {
      expect(await secretOf(id)).toMatch(/^v2\./);
      expect(await decryptSecret(await secretOf(id), NEW, id)).toBe(SECRET);
    }
    expect(await reencryptSecrets(database.db, rotated)).toMatchObject({
      reencrypted: 0,
      current: 2,
      unreadable: 1,
    });
    await database.db.delete(webhooks).where(eq(webhooks.id, lost.id));
  });

  it('/test answers 503 secret_unavailable, never a 500, when the secret cannot be read', async () => {
    const app = await startTestApp(database.db, {
      config: { WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ENCRYPTION_KEY: NEW },
    });
    const receiver = await startReceiver();
    try {
      const key = await createKey(database.db);
      const headers = { 'X-Api-Key': key.key };
      // Sealed under a key the service no longer has.
      const lost = (await createWebhook(database.db, key.id, { url: receiver.url, secret: SECRET }, OLD))!;
      // A readable ciphertext copied onto another webhook's row (AAD binds it to its own id).
      const own = (await createWebhook(database.db, key.id, { url: receiver.url, secret: SECRET }, NEW))!;
      const moved = (await createWebhook(database.db, key.id, { url: receiver.url }, NEW))!;
      await database.db
        .update(webhooks)
        .set({ secretCiphertext: own.secretCiphertext })
        .where(eq(webhooks.id, moved.id));

      for (const id of [lost.id, moved.id]) {
        const res = await app.fetch(`/api/v1/webhooks/${id}/test`, { method: 'POST', headers });
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await res.json()).toMatchObject({ status: 503, code: 'secret_unavailable' });
      }
      expect(receiver.received).toHaveLength(0);
      const ok = await app.fetch(`/api/v1/webhooks/${own.id}/test`, { method: 'POST', headers });
      expect(await ok.json()).toMatchObject({ ok: true, status: 200 });
    } finally {
      await receiver.close();
      await app.close();
      await database.db.delete(webhooks);
    }
  });

  it('the dispatcher logs an unreadable secret as secret_unavailable and sends nothing', async () => {
    const receiver = await startReceiver();
    try {
      const key = await createKey(database.db);
      const row = (await createWebhook(database.db, key.id, { url: receiver.url, secret: SECRET }, OLD))!;
      const item = {
        ...FIXTURE[Object.keys(FIXTURE)[0] as keyof typeof FIXTURE],
        source_url: `https://wire.example.com/secrets/${Date.now()}`,
      };
      expect((await ingestSignals(database.db, [item])).accepted).toBe(1);
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        WEBHOOK_ALLOW_INSECURE: 'true',
        WEBHOOK_ENCRYPTION_KEY: NEW,
      });
      const deps = {
        db: database.db,
        config,
        now: () => new Date(Date.now() + 60_000),
        fetch: globalThis.fetch.bind(globalThis),
        log: memoryLogger(),
      };
      expect(await dispatchWebhooks(deps, { settleMs: 0 })).toMatchObject({ failed: 1, deliveries: 0 });
      expect(receiver.received).toHaveLength(0);
      expect((await recentDeliveries(database.db, row.id))[0]).toMatchObject({
        ok: false,
        error: 'secret_unavailable',
      });
    } finally {
      await receiver.close();
      await database.db.delete(webhooks);
    }
  });

  it('npm run cli -- webhooks reencrypt runs the rotation', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reencrypt-'));
    try {
      const embedded = await pgliteDatabase(join(dataDir, 'pglite'));
      const key = await createKey(embedded.db);
      const row = (await createWebhook(
        embedded.db,
        key.id,
        { url: 'https://a.example.com/', secret: SECRET },
        OLD,
      ))!;
      await embedded.close();
      const { stdout } = await promisify(execFile)('npx', ['tsx', 'src/cli.ts', 'webhooks', 'reencrypt'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOK_ENCRYPTION_KEY: `${NEW},${OLD}` },
      });
      expect(JSON.parse(stdout)).toEqual({ secrets: 1, reencrypted: 1, current: 0, unreadable: 0 });
      const reopened = await pgliteDatabase(join(dataDir, 'pglite'));
      const [stored] = await reopened.db.select().from(webhooks).where(eq(webhooks.id, row.id));
      await reopened.close();
      expect(await decryptSecret(stored!.secretCiphertext!, NEW, row.id)).toBe(SECRET);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
