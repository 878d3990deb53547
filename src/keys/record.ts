import type { KeyTier } from '../vocab';

/** What authentication needs of a key: who holds it, at which tier, and whether it still works. */
export interface KeyRecord {
  keyId: string;
  accountId: string;
  prefix: string;
  tier: KeyTier;
  revoked: boolean;
}
