export { REGIONS, regionOf, isCountryCode, type Region } from './countries';

export const LAYERS = [
  'military',
  'cyber',
  'economic',
  'disaster',
  'political',
  'criminal',
  'health',
  'supply_chain',
] as const;
export type Layer = (typeof LAYERS)[number];

export const VALENCES = ['crisis', 'update', 'resolution'] as const;
export type Valence = (typeof VALENCES)[number];

export const SOURCE_TIERS = ['core', 'community', 'discovered'] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];

export const KEY_TIERS = ['free', 'pro'] as const;
export type KeyTier = (typeof KEY_TIERS)[number];

export const ENTITY_TYPES = ['person', 'organization', 'location'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
