import { and, asc, eq, gt, isNotNull } from 'drizzle-orm';
import type { Database } from '../db/client';
import { webhooks } from '../db/schema';
import {
  decryptSecret,
  encryptionKeys,
  encryptSecret,
  MissingEncryptionKey,
  needsReencryption,
} from './crypto';

export interface ReencryptSummary {
  /** Webhooks with a stored secret. */
  secrets: number;
  /** Rewritten under the newest key (and the current format). */
  reencrypted: number;
  /** Already under the newest key. */
  current: number;
  /** Readable with none of the configured keys: left as they are. */
  unreadable: number;
}

const PAGE = 500;

/**
 * Re-encrypts every stored webhook secret with the newest of `keys`, after a rotation
 * (`npm run cli -- webhooks reencrypt`). Once it reports no `unreadable`, older keys can be
 * removed from WEBHOOK_ENCRYPTION_KEY. A row changed meanwhile is left for the next run.
 */
export async function reencryptSecrets(db: Database, keys: string | undefined): Promise<ReencryptSummary> {
  if (encryptionKeys(keys).length === 0) throw new MissingEncryptionKey();
  const summary: ReencryptSummary = { secrets: 0, reencrypted: 0, current: 0, unreadable: 0 };
  let after: string | null = null;
  for (;;) {
    const rows: { id: string; secretCiphertext: string | null }[] = await db
      .select({ id: webhooks.id, secretCiphertext: webhooks.secretCiphertext })
      .from(webhooks)
      .where(and(isNotNull(webhooks.secretCiphertext), after ? gt(webhooks.id, after) : undefined))
      .orderBy(asc(webhooks.id))
      .limit(PAGE);
    for (const { id, secretCiphertext: stored } of rows) {
      summary.secrets += 1;
      if (!(await needsReencryption(stored!, keys))) {
        summary.current += 1;
        continue;
      }
      let secret: string;
      try {
        secret = await decryptSecret(stored!, keys, id);
      } catch {
        summary.unreadable += 1;
        continue;
      }
      const updated = await db
        .update(webhooks)
        .set({ secretCiphertext: await encryptSecret(secret, keys, id) })
        .where(and(eq(webhooks.id, id), eq(webhooks.secretCiphertext, stored!)))
        .returning({ id: webhooks.id });
      if (updated.length > 0) summary.reencrypted += 1;
    }
    if (rows.length < PAGE) return summary;
    after = rows[rows.length - 1]!.id;
  }
}
