import { createRoute } from '@hono/zod-openapi';
import { requireAdmin } from '../http/admin';
import { createRouter, errors } from '../http/openapi';
import { dispatchWebhooks } from '../webhooks/dispatch';
import { DispatchSummarySchema } from '../webhooks/schemas';

const dispatchRoute = createRoute({
  method: 'post',
  path: '/api/v1/admin/webhooks/dispatch',
  tags: ['Admin'],
  summary: 'Run one webhook dispatcher pass now',
  description:
    'The same pass the 5-minute cron runs. Safe to overlap with it: webhooks are claimed with a lease, so no batch is sent twice at once.',
  security: [{ AdminToken: [] }],
  middleware: [requireAdmin] as const,
  responses: {
    200: {
      description: 'What the pass did.',
      content: { 'application/json': { schema: DispatchSummarySchema } },
    },
    ...errors(401, 404, 503),
  },
});

export const adminWebhookRoutes = createRouter().openapi(dispatchRoute, async (c) =>
  c.json(await dispatchWebhooks(c.env.deps), 200),
);
