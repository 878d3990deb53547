/**
 * Secrets at rest and delivery signatures, with WebCrypto only so the same code runs in
 * Node and in Workers.
 */

const encoder = new TextEncoder();

const toBase64 = (bytes: Uint8Array): string => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Thrown when a secret must be stored or read but no WEBHOOK_ENCRYPTION_KEY is configured. */
export class MissingEncryptionKey extends Error {
  constructor() {
    super('WEBHOOK_ENCRYPTION_KEY is not configured, so webhook secrets cannot be stored or read.');
    this.name = 'MissingEncryptionKey';
  }
}

/** Thrown when a stored secret cannot be read with any configured key (rotated away, or moved). */
export class SecretUnavailable extends Error {
  constructor() {
    super('The webhook signing secret cannot be decrypted with any configured WEBHOOK_ENCRYPTION_KEY.');
    this.name = 'SecretUnavailable';
  }
}

/** WEBHOOK_ENCRYPTION_KEY as a list of keys, newest first (empty when unset). */
export function encryptionKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
}

// Importing a key costs a little; one per configured key value is safe to share per isolate.
const keyCache = new Map<string, Promise<CryptoKey>>();
const idCache = new Map<string, Promise<string>>();

function aesKey(base64Key: string): Promise<CryptoKey> {
  let key = keyCache.get(base64Key);
  if (!key) {
    key = crypto.subtle.importKey('raw', fromBase64(base64Key), 'AES-GCM', false, ['encrypt', 'decrypt']);
    keyCache.set(base64Key, key);
  }
  return key;
}

/** A short public name for a key (8 hex of its SHA-256), so a ciphertext says which key sealed it. */
function keyId(base64Key: string): Promise<string> {
  let id = idCache.get(base64Key);
  if (!id) {
    id = crypto.subtle
      .digest('SHA-256', fromBase64(base64Key))
      .then((hash) => toHex(new Uint8Array(hash).subarray(0, 4)));
    idCache.set(base64Key, id);
  }
  return id;
}

/**
 * `v1.<iv>.<ciphertext>`: the first format, no associated data; still read, never written.
 * `v2.<key id>.<iv>.<ciphertext>`: AES-256-GCM with the webhook id as additional authenticated
 * data, so a ciphertext copied onto another webhook's row does not decrypt there.
 */
const LEGACY = 'v1';
const CURRENT = 'v2';

/** Encrypts `secret` for webhook `webhookId` with the newest of `keys` (WEBHOOK_ENCRYPTION_KEY). */
export async function encryptSecret(
  secret: string,
  keys: string | undefined,
  webhookId: string,
): Promise<string> {
  const [newest] = encryptionKeys(keys);
  if (!newest) throw new MissingEncryptionKey();
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(webhookId) },
    await aesKey(newest),
    encoder.encode(secret),
  );
  return `${CURRENT}.${await keyId(newest)}.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

async function open(key: string, iv: string, sealed: string, aad?: string): Promise<string> {
  const plain = await crypto.subtle.decrypt(
    {
      name: 'AES-GCM',
      iv: fromBase64(iv),
      ...(aad === undefined ? {} : { additionalData: encoder.encode(aad) }),
    },
    await aesKey(key),
    fromBase64(sealed),
  );
  return new TextDecoder().decode(plain);
}

/**
 * Reverses `encryptSecret` with whichever configured key sealed it (v2 names it; a v1 value is
 * tried with each). Throws `MissingEncryptionKey` with no key configured, `SecretUnavailable`
 * when no configured key opens it.
 */
export async function decryptSecret(
  stored: string,
  keys: string | undefined,
  webhookId: string,
): Promise<string> {
  const all = encryptionKeys(keys);
  if (all.length === 0) throw new MissingEncryptionKey();
  const parts = stored.split('.');
  try {
    if (parts[0] === CURRENT && parts.length === 4) {
      const [, id, iv, sealed] = parts as [string, string, string, string];
      for (const key of all) if ((await keyId(key)) === id) return await open(key, iv, sealed, webhookId);
    } else if (parts[0] === LEGACY && parts.length === 3) {
      const [, iv, sealed] = parts as [string, string, string];
      for (const key of all) {
        try {
          return await open(key, iv, sealed);
        } catch {
          // Not this key; try the next.
        }
      }
    }
  } catch {
    // A tampered value, or one moved from another webhook: unreadable like a missing key.
  }
  throw new SecretUnavailable();
}

/** True when `stored` is not yet in the current format under the newest key (rotation). */
export async function needsReencryption(stored: string, keys: string | undefined): Promise<boolean> {
  const [newest] = encryptionKeys(keys);
  if (!newest) return false;
  const parts = stored.split('.');
  return !(parts[0] === CURRENT && parts.length === 4 && parts[1] === (await keyId(newest)));
}

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}

/** The spec's `X-Service-Signature-256` value: `sha256=` + hex HMAC-SHA256 of the raw body. */
export async function bodySignature(secret: string, body: string): Promise<string> {
  return `sha256=${toHex(await hmac(secret, body))}`;
}

/**
 * The Standard Webhooks `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's UTF-8 bytes (`whsec_` + base64(secret)).
 */
export async function standardSignature(
  secret: string,
  deliveryId: string,
  timestamp: number,
  body: string,
): Promise<string> {
  return `v1,${toBase64(await hmac(secret, `${deliveryId}.${timestamp}.${body}`))}`;
}

/** A fresh 32-byte key in the WEBHOOK_ENCRYPTION_KEY format (base64, 44 characters). */
export function generateEncryptionKey(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(32)));
}
