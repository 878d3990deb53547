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

// Importing a key costs a little; one per configured key value is safe to share per isolate.
const keyCache = new Map<string, Promise<CryptoKey>>();

function aesKey(base64Key: string): Promise<CryptoKey> {
  let key = keyCache.get(base64Key);
  if (!key) {
    key = crypto.subtle.importKey('raw', fromBase64(base64Key), 'AES-GCM', false, ['encrypt', 'decrypt']);
    keyCache.set(base64Key, key);
  }
  return key;
}

const VERSION = 'v1';

/** AES-256-GCM encrypts `secret` as `v1.<iv>.<ciphertext>` (base64). */
export async function encryptSecret(secret: string, base64Key: string | undefined): Promise<string> {
  if (!base64Key) throw new MissingEncryptionKey();
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await aesKey(base64Key),
    encoder.encode(secret),
  );
  return `${VERSION}.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

/** Reverses `encryptSecret`; throws when the key is missing or is not the one it was sealed with. */
export async function decryptSecret(stored: string, base64Key: string | undefined): Promise<string> {
  if (!base64Key) throw new MissingEncryptionKey();
  const [version, iv, sealed] = stored.split('.');
  if (version !== VERSION || !iv || !sealed) throw new Error('unrecognised webhook secret format');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64(iv) },
    await aesKey(base64Key),
    fromBase64(sealed),
  );
  return new TextDecoder().decode(plain);
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
