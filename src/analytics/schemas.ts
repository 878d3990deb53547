/** OpenAPI shapes that several analytics answers share (`src/routes/` snapshots, trending, crises, stats, clusters, entity, brief). */
import { z } from '@hono/zod-openapi';
import { LAYERS, REGIONS } from '../vocab';

/** The time span an analytic answer covers. */
export const WindowSchema = z
  .object({
    start: z.string().openapi({ example: '2026-11-21T06:00:00.000Z' }),
    end: z.string().openapi({ example: '2026-11-22T06:00:00.000Z' }),
  })
  .openapi('Window', { description: 'The time span the answer covers (start exclusive unless stated).' });

export const LayerSchema = z.enum(LAYERS).openapi({ example: 'cyber' });
export const RegionSchema = z.enum(REGIONS).openapi({ example: 'Europe' });
