import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { access, callerOf, invalidKey } from '../http/auth';
import { jsonBody } from '../http/body';
import { createRouter, errors, security } from '../http/openapi';
import { ApiError, invalidRequest, notFound } from '../http/problem';
import { MissingEncryptionKey, SecretUnavailable } from '../webhooks/crypto';
import { sendTestDelivery } from '../webhooks/dispatch';
import { urlProblem } from '../webhooks/guard';
import {
  CreateWebhookSchema,
  DeliverySchema,
  UpdateWebhookSchema,
  WEBHOOK_LIMIT,
  WebhookSchema,
} from '../webhooks/schemas';
import {
  AccountWebhookLimit,
  createWebhook,
  deleteWebhook,
  KeyRevoked,
  findWebhook,
  listWebhooks,
  recentDeliveries,
  updateWebhook,
  webhookJson,
} from '../webhooks/service';

const tags = ['Webhooks'];

const IdParams = z.object({
  id: z
    .uuid({ message: 'must be a UUID' })
    .openapi({ param: { name: 'id', in: 'path' }, example: '0b7e5c1a-4f2d-4c8e-9a31-6d2f8b0c7e14' }),
});

const webhookResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: WebhookSchema } },
});

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/webhooks',
  tags,
  summary: "List the key's webhooks",
  security,
  middleware: [access('key')] as const,
  responses: {
    200: {
      description: 'Webhooks registered to the calling key.',
      content: { 'application/json': { schema: z.object({ data: z.array(WebhookSchema) }) } },
    },
    ...errors(401, 429, 503),
  },
});

const createWebhookRoute = createRoute({
  method: 'post',
  path: '/api/v1/webhooks',
  tags,
  summary: 'Register a webhook',
  description: `At most ${WEBHOOK_LIMIT} per key, and ${WEBHOOK_LIMIT} per active key across the account (409 \`webhook_limit_reached\`); revoking a key deletes its webhooks. The webhook receives signals ingested after it was registered, batched every 5 minutes. With a \`secret\`, deliveries are signed (\`X-Service-Signature-256\` and Standard Webhooks headers).`,
  security,
  middleware: [access('key'), jsonBody()] as const,
  request: {
    body: { required: true, content: { 'application/json': { schema: CreateWebhookSchema } } },
  },
  responses: {
    201: webhookResponse('The new webhook (the secret is never returned).'),
    ...errors(400, 401, 409, 413, 415, 429, 503),
  },
});

const updateRoute = createRoute({
  method: 'post',
  path: '/api/v1/webhooks/{id}',
  tags,
  summary: 'Update a webhook',
  description:
    'Any of `url`, `name`, `layers`, `min_score`, `country_codes`, `valence`, `active`; `null` clears a filter. `active: false` pauses, `active: true` resumes (and clears a pause the service made after 3 days of failures).',
  security,
  middleware: [access('key'), jsonBody()] as const,
  request: {
    params: IdParams,
    body: { required: true, content: { 'application/json': { schema: UpdateWebhookSchema } } },
  },
  responses: {
    200: webhookResponse('The updated webhook.'),
    ...errors(400, 401, 404, 413, 415, 429, 503),
  },
});

const deleteRoute = createRoute({
  method: 'delete',
  path: '/api/v1/webhooks/{id}',
  tags,
  summary: 'Delete a webhook',
  security,
  middleware: [access('key')] as const,
  request: { params: IdParams },
  responses: {
    204: { description: 'Deleted.' },
    ...errors(400, 401, 404, 429, 503),
  },
});

const deliveriesRoute = createRoute({
  method: 'get',
  path: '/api/v1/webhooks/{id}/deliveries',
  tags,
  summary: 'Recent delivery attempts',
  description: 'The 50 most recent attempts, newest first, test deliveries included.',
  security,
  middleware: [access('key')] as const,
  request: { params: IdParams },
  responses: {
    200: {
      description: 'Recent attempts.',
      content: { 'application/json': { schema: z.object({ data: z.array(DeliverySchema) }) } },
    },
    ...errors(400, 401, 404, 429, 503),
  },
});

const TestResultSchema = z
  .object({
    delivery_id: z.uuid(),
    ok: z.boolean().openapi({ example: true }),
    status: z.number().int().nullable().openapi({ example: 200 }),
    duration_ms: z.number().int().openapi({ example: 87 }),
    error: z.string().nullable().openapi({
      description:
        'Why it failed, as a class: `dns_failed`, `connect_failed`, `tls_failed`, `timeout`, `blocked_address` or `http_<status>`.',
      example: null,
    }),
  })
  .openapi('WebhookTestResult');

const testRoute = createRoute({
  method: 'post',
  path: '/api/v1/webhooks/{id}/test',
  tags,
  summary: 'Send a test delivery',
  description:
    'Sends one signed sample delivery now (one made-up signal) and answers with the outcome. It is listed among the deliveries as a test and never counts as a failure.',
  security,
  middleware: [access('key')] as const,
  request: { params: IdParams },
  responses: {
    200: {
      description: 'The outcome of the test delivery (also when the receiver failed).',
      content: { 'application/json': { schema: TestResultSchema } },
    },
    ...errors(400, 401, 404, 429, 503),
  },
});

function checkUrl(c: Context<AppEnv>, url: string | undefined): void {
  if (url === undefined) return;
  const { config } = c.env.deps;
  const problem = urlProblem(url, config.WEBHOOK_ALLOW_INSECURE, config.WEBHOOK_ALLOWED_PORTS);
  if (problem) throw invalidRequest([{ path: 'url', message: problem }]);
}

/** A secret must never be stored in clear: without an encryption key, creation is refused. */
const secretsUnavailable = () =>
  new ApiError(
    503,
    'service_unavailable',
    'Signed webhooks are unavailable: the operator has not configured WEBHOOK_ENCRYPTION_KEY. Register without a secret, or retry later.',
    undefined,
    { 'Retry-After': '3600' },
  );

export const webhookRoutes = createRouter()
  .openapi(listRoute, async (c) => {
    const rows = await listWebhooks(c.env.deps.db, callerOf(c).keyId);
    return c.json({ data: rows.map(webhookJson) }, 200);
  })
  .openapi(createWebhookRoute, async (c) => {
    const body = c.req.valid('json');
    checkUrl(c, body.url);
    let row;
    try {
      row = await createWebhook(
        c.env.deps.db,
        callerOf(c).keyId,
        body,
        c.env.deps.config.WEBHOOK_ENCRYPTION_KEY,
      );
    } catch (error) {
      if (error instanceof MissingEncryptionKey) throw secretsUnavailable();
      if (error instanceof AccountWebhookLimit) {
        throw new ApiError(
          409,
          'webhook_limit_reached',
          `This account's keys hold ${error.held} webhooks; an account may hold at most ${WEBHOOK_LIMIT} per active key (${error.limit} now). Delete one first.`,
        );
      }
      if (error instanceof KeyRevoked) {
        throw invalidKey();
      }
      throw error;
    }
    if (!row) {
      throw new ApiError(
        409,
        'webhook_limit_reached',
        `A key may register at most ${WEBHOOK_LIMIT} webhooks; delete one first.`,
      );
    }
    return c.json(webhookJson(row), 201);
  })
  .openapi(updateRoute, async (c) => {
    const body = c.req.valid('json');
    checkUrl(c, body.url);
    const { deps } = c.env;
    const row = await updateWebhook(deps.db, callerOf(c).keyId, c.req.valid('param').id, body, deps.now());
    if (!row) throw notFound('webhook');
    return c.json(webhookJson(row), 200);
  })
  .openapi(deleteRoute, async (c) => {
    if (!(await deleteWebhook(c.env.deps.db, callerOf(c).keyId, c.req.valid('param').id))) {
      throw notFound('webhook');
    }
    return c.body(null, 204);
  })
  .openapi(deliveriesRoute, async (c) => {
    const { db } = c.env.deps;
    const webhook = await findWebhook(db, callerOf(c).keyId, c.req.valid('param').id);
    if (!webhook) throw notFound('webhook');
    return c.json({ data: await recentDeliveries(db, webhook.id) }, 200);
  })
  .openapi(testRoute, async (c) => {
    const { deps } = c.env;
    const webhook = await findWebhook(deps.db, callerOf(c).keyId, c.req.valid('param').id);
    if (!webhook) throw notFound('webhook');
    let result;
    try {
      result = await sendTestDelivery(deps, webhook);
    } catch (error) {
      if (error instanceof MissingEncryptionKey) throw secretsUnavailable();
      if (error instanceof SecretUnavailable) {
        throw new ApiError(
          503,
          'secret_unavailable',
          "This webhook's signing secret cannot be read with the service's current encryption keys, so nothing was sent. The operator must restore the key; or delete and re-create the webhook with a new secret.",
        );
      }
      throw error;
    }
    return c.json(
      {
        delivery_id: result.deliveryId,
        ok: result.ok,
        status: result.status,
        duration_ms: result.durationMs,
        error: result.error,
      },
      200,
    );
  });
