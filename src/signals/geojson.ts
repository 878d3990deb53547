import { z } from '@hono/zod-openapi';
import { SignalSchema } from './serialize';

/** The media type of GeoJSON (RFC 7946 §12). */
export const GEOJSON_CONTENT_TYPE = 'application/geo+json';

/** One signal as an RFC 7946 Feature (written by Postgres: signals/page.ts). */
export const SignalFeatureSchema = z
  .object({
    type: z.literal('Feature'),
    id: z.uuid(),
    geometry: z
      .object({
        type: z.literal('Point'),
        coordinates: z
          .array(z.number())
          .length(2)
          .openapi({ example: [4.8357, 45.764] }),
      })
      .nullable()
      .openapi({ description: 'A Point at `[lng, lat]`; null when the signal has no coordinates.' }),
    properties: SignalSchema,
  })
  .openapi('SignalFeature');

/**
 * An RFC 7946 FeatureCollection around `features`, the JSON array of Features Postgres wrote
 * (signals/page.ts). `members` adds foreign members (RFC 7946 §6.1) such as the pagination,
 * as JSON text without braces.
 */
export const geoJsonCollection = (features: string, members?: string) =>
  `{"type":"FeatureCollection","features":${features}${members ? `,${members}` : ''}}`;
