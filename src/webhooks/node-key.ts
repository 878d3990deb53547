import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import { generateEncryptionKey } from './crypto';

/**
 * WEBHOOK_ENCRYPTION_KEY, or (Node only) one generated once and kept under DATA_DIR, like the
 * admin token, so secrets stored by an earlier run stay readable.
 */
export function nodeEncryptionKey(config: Config): string {
  if (config.WEBHOOK_ENCRYPTION_KEY) return config.WEBHOOK_ENCRYPTION_KEY;
  const file = join(config.DATA_DIR, 'webhook-encryption-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const key = generateEncryptionKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
